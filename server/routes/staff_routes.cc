#include "staff_routes.h"

#include <algorithm>
#include <charconv>

#include "common/rfc3339.h"
#include "common/url_encoding.h"
#include "csv_cells.h"
#include "headgrader/limits.h"
#include "headgrader/problem.h"
#include "headgrader/report.h"
#include "problem_stats.h"
#include "staff_answer_parts.h"

namespace headgrader::server {
namespace {

// A grading's mistakes in one CSV cell: their names, space-separated ("" for none).
std::string mistakes_cell(const std::vector<std::string>& mistakes) {
  std::string cell;
  for (const std::string& name : mistakes) cell += (cell.empty() ? "" : " ") + name;
  return cell;
}

Json record_summary(const store::SubmissionRecord& r) {
  Json failing = Json::array();
  for (const auto& input : r.failing_inputs) failing.push_back(input);
  return Json{
      {"id", r.id},
      {"time", format_rfc3339_ms(r.time)},
      {"problem", r.problem},
      {"problem_sha256", r.problem_sha256},
      {"student", nullable(r.student)},
      {"key", nullable(r.key)},
      {"passed", r.passed},
      {"score", number_to_json(r.score)},
      {"tests", {{"total", r.tests_total}, {"passed", r.tests_passed}, {"failed", r.tests_failed}}},
      {"failing_inputs", std::move(failing)},
      // The names of the mistakes its diagnosis proved (API.md §16), in the answer's order.
      {"mistakes", Json(r.mistakes)},
      // The student's variant it was graded on (API.md §15); null: the problem as written.
      {"variant", r.variant.empty() ? Json(nullptr) : Json(r.variant)},
      // The pool's member it was of (API.md §15), when `problem` is a pool; else null.
      {"member", r.member.empty() ? Json(nullptr) : Json(r.member)},
      {"regrade_of", nullable(r.regrade_of)},
      // The LMS course and link of a launched student's grading (§11), else null.
      {"lms", r.lms_context || r.lms_resource_link
                  ? Json{{"context", nullable(r.lms_context)},
                         {"resource_link", nullable(r.lms_resource_link)}}
                  : Json(nullptr)}};
}

std::string score_text(double score) { return number_to_json(score).dump(); }

}  // namespace

Result<store::SubmissionQuery> parse_submission_query(std::string_view query, bool csv) {
  store::SubmissionQuery parsed;
  parsed.limit = csv ? 0 : limits::kDefaultListLimit;  // CSV: 0 = every record
  const auto pairs = form_pairs(query);
  if (!pairs) {
    return bad_parameter("",
                         "the query string is not valid: each '%' must be followed by two "
                         "hexadecimal digits");
  }
  std::vector<std::string> seen;
  for (const auto& [name, value] : *pairs) {
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      return bad_parameter(name, name + " is given twice; give it once");
    }
    seen.push_back(name);
    if (value.empty()) continue;  // "?student=" is no filter
    if (name == "problem") {
      parsed.problem = value;
    } else if (name == "student") {
      parsed.student = value;
    } else if (name == "passed") {
      if (value != "true" && value != "false") {
        return bad_parameter("passed", "passed must be true or false; it is \"" + value + "\"");
      }
      parsed.passed = value == "true";
    } else if (name == "since" || name == "until") {
      const auto time = parse_rfc3339(value);
      if (!time) {
        return bad_parameter(name, name +
                                       " must be an RFC 3339 time such as "
                                       "2026-12-01T09:00:00Z; it is \"" +
                                       value + "\"");
      }
      (name == "since" ? parsed.since : parsed.until) = *time;
    } else if (name == "limit") {
      int limit = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), limit);
      if (ec != std::errc() || end != value.data() + value.size() || limit < 1 ||
          limit > limits::kMaxListLimit) {
        return bad_parameter("limit", "limit must be a whole number from 1 to " +
                                          std::to_string(limits::kMaxListLimit) + "; it is \"" +
                                          value + "\"");
      }
      parsed.limit = limit;
    } else if (name == "cursor") {
      parsed.cursor = value;
    } else {
      return bad_parameter(name, "unknown parameter \"" + name +
                                     "\"; the filters are problem, student, passed, since, "
                                     "until, limit and cursor");
    }
  }
  return parsed;
}

namespace {

// One record as a row of the CSV (the header in list_submissions).
void append_csv_row(std::string& text, const store::SubmissionRecord& r) {
  text += csv_text_cell(r.id) + ',' + format_rfc3339_ms(r.time) + ',' + csv_text_cell(r.problem) +
          ',' + csv_text_cell(r.student.value_or("")) + ',' + csv_text_cell(r.key.value_or("")) +
          ',' + (r.passed ? "true" : "false") + ',' + score_text(r.score) + ',' +
          std::to_string(r.tests_total) + ',' + std::to_string(r.tests_failed) + ',' +
          csv_text_cell(mistakes_cell(r.mistakes)) + "\r\n";
}

// Saved under a name of its own by a browser (the staff page's download), not shown.
constexpr std::string_view kSubmissionsCsvDisposition = "attachment; filename=\"submissions.csv\"";

constexpr std::string_view kCsvHeader =
    "id,time,problem,student,key,passed,score,tests_total,tests_failed,mistakes\r\n";

// The CSV of every record matching a query, a page of limits::kCsvExportPageRecords rows at a
// time: the header with the first page (read before the answer's head is sent), then each
// next page read only when asked for.
class CsvExport final : public BodyStream {
 public:
  CsvExport(store::SubmissionStore& store, store::SubmissionQuery query, std::string first,
            std::optional<std::string> next)
      : store_(store), query_(std::move(query)), first_(std::move(first)), next_(std::move(next)) {}

  Result<std::optional<std::string>> next() override {
    if (first_) {
      std::optional<std::string> piece = std::move(first_);
      first_.reset();
      return piece;
    }
    if (!next_) return std::optional<std::string>();
    query_.cursor = *next_;
    Result<store::SubmissionPage> page = store_.list(query_);
    if (!page) return page.error();
    std::string text;
    for (const auto& record : page->records) append_csv_row(text, record);
    next_ = page->next_cursor;
    // A page may come empty only at the end: the body's pieces are never empty.
    if (text.empty()) return std::optional<std::string>();
    return std::optional<std::string>(std::move(text));
  }

 private:
  store::SubmissionStore& store_;  // outlives the server's connections
  store::SubmissionQuery query_;
  std::optional<std::string> first_;
  std::optional<std::string> next_;
};

}  // namespace

Response list_submissions(store::SubmissionStore& store, std::string_view query, bool csv,
                          unsigned version, bool keep_alive, std::shared_ptr<BodyStream>* stream) {
  Result<store::SubmissionQuery> parsed = parse_submission_query(query, csv);
  if (!parsed) return error_response(parsed.error(), version, keep_alive);
  store::SubmissionQuery q = std::move(parsed).value();
  const bool every = q.limit == 0;
  if (every && csv && stream != nullptr) {
    q.limit = limits::kCsvExportPageRecords;
    Result<store::SubmissionPage> page = store.list(q);
    if (!page) {
      if (page.error().code != ErrorCode::kStoreUnavailable) {
        return error_response(page.error(), version, keep_alive);
      }
      return record_unavailable(page.error(), version, keep_alive);
    }
    std::string first(kCsvHeader);
    for (const auto& record : page->records) append_csv_row(first, record);
    *stream = std::make_shared<CsvExport>(store, std::move(q), std::move(first),
                                          std::move(page->next_cursor));
    Response response = json_response(http::status::ok, "", version, keep_alive);
    response.set(http::field::content_type, "text/csv; charset=utf-8");
    response.set(http::field::content_disposition, kSubmissionsCsvDisposition);
    response.erase(http::field::content_length);
    return response;
  }
  if (every) q.limit = limits::kMaxListLimit;  // a page of the export

  // The CSV's rows are written page by page and each page's records dropped before the next
  // is read; the JSON list is one page at most.
  std::string text(kCsvHeader);
  std::vector<store::SubmissionRecord> records;
  std::optional<std::string> next;
  for (;;) {
    Result<store::SubmissionPage> page = store.list(q);
    if (!page) {
      if (page.error().code != ErrorCode::kStoreUnavailable) {
        return error_response(page.error(), version, keep_alive);
      }
      return record_unavailable(page.error(), version, keep_alive);
    }
    if (csv) {
      for (const auto& record : page->records) append_csv_row(text, record);
    } else {
      for (auto& record : page->records) records.push_back(std::move(record));
    }
    next = page->next_cursor;
    if (!every || !next) break;
    q.cursor = *next;
  }

  if (!csv) {
    Json list = Json::array();
    for (const auto& record : records) list.push_back(record_summary(record));
    return json_response(http::status::ok,
                         dump(Json{{"submissions", std::move(list)},
                                   {"next_cursor", next ? Json(*next) : Json(nullptr)}}),
                         version, keep_alive);
  }
  Response response = json_response(http::status::ok, std::move(text), version, keep_alive);
  response.set(http::field::content_type, "text/csv; charset=utf-8");
  response.set(http::field::content_disposition, kSubmissionsCsvDisposition);
  if (next) response.set("X-Next-Cursor", *next);
  return response;
}

Response students_csv(store::SubmissionStore& store, std::string_view query, unsigned version,
                      bool keep_alive) {
  const auto pairs = form_pairs(query);
  if (!pairs) {
    return error_response(bad_parameter("",
                                        "the query string is not valid: each '%' must be "
                                        "followed by two hexadecimal digits"),
                          version, keep_alive);
  }
  std::optional<std::string> problem;
  for (const auto& [name, value] : *pairs) {
    if (name != "problem") {
      return error_response(bad_parameter(name, "unknown parameter \"" + name +
                                                    "\"; the per-student CSV takes only problem"),
                            version, keep_alive);
    }
    if (problem) {
      return error_response(bad_parameter(name, "problem is given twice; give it once"), version,
                            keep_alive);
    }
    problem = value;
  }
  if (problem && problem->empty()) problem.reset();  // "?problem=" is no filter
  auto summaries = store.student_summaries(problem);
  if (!summaries) return record_unavailable(summaries.error(), version, keep_alive);
  std::string text =
      "student,problem,attempts,best_score,latest_score,passed,first_passed_at,latest_at,"
      "latest_mistakes\r\n";
  for (const store::StudentProblemSummary& s : *summaries) {
    text += csv_text_cell(s.student) + ',' + csv_text_cell(s.problem) + ',' +
            std::to_string(s.attempts) + ',' + score_text(s.best_score) + ',' +
            score_text(s.latest_score) + ',' + (s.latest_passed ? "true" : "false") + ',' +
            (s.first_passed ? format_rfc3339_ms(*s.first_passed) : "") + ',' +
            format_rfc3339_ms(s.latest_time) + ',' +
            csv_text_cell(mistakes_cell(s.latest_mistakes)) + "\r\n";
  }
  Response response = json_response(http::status::ok, std::move(text), version, keep_alive);
  response.set(http::field::content_type, "text/csv; charset=utf-8");
  // A problem's id is [a-z0-9-]: safe in a quoted file name; any other filter is not named.
  response.set(http::field::content_disposition,
               "attachment; filename=\"students" +
                   (problem && is_problem_id(*problem) ? "-" + *problem : std::string()) +
                   ".csv\"");
  return response;
}

Response get_submission(store::SubmissionStore& store, std::string_view id, unsigned version,
                        bool keep_alive) {
  auto found = store.get(id);
  if (!found) return record_unavailable(found.error(), version, keep_alive);
  if (!found->has_value()) {
    return error_response({ErrorCode::kNotFound, "there is no submission with this id", ""},
                          version, keep_alive);
  }
  const store::SubmissionRecord& r = **found;
  Json record = record_summary(r);
  // The matrices as sent: the body's keys that are not the optional ones.
  Json matrices = Json::object();
  const Json body = Json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_object()) {
    for (const auto& [key, value] : body.items()) {
      if (key != "student" && key != "max_failures") matrices[key] = value;
    }
    if (body.contains("max_failures")) record["max_failures"] = body["max_failures"];
  }
  record["matrices"] = std::move(matrices);
  record["answer"] = Json::parse(r.answer, nullptr, /*allow_exceptions=*/false);
  return json_response(http::status::ok, dump(record), version, keep_alive);
}

Response problem_stats(store::SubmissionStore& store, std::string_view problem, unsigned version,
                       bool keep_alive) {
  auto inputs = store.stats_inputs(problem);
  if (!inputs) return record_unavailable(inputs.error(), version, keep_alive);
  const store::ProblemStats stats = store::compute_stats(std::string(problem), *inputs);
  Json failures = Json::array();
  for (const auto& failure : stats.common_failures) {
    failures.push_back({{"input", failure.input}, {"students", failure.students}});
  }
  Json histogram = Json::array();
  for (const std::int64_t count : stats.score_histogram) histogram.push_back(count);
  Json mistakes = Json::array();
  for (const auto& mistake : stats.mistakes) {
    mistakes.push_back({{"mistake", mistake.mistake}, {"students", mistake.students}});
  }
  Json answer = {
      {"problem", stats.problem},
      {"submissions", stats.submissions},
      {"students", stats.students},
      {"students_passed", stats.students_passed},
      {"first_try_pass_rate",
       stats.first_try_pass_rate ? number_to_json(*stats.first_try_pass_rate) : Json(nullptr)},
      {"score_histogram", std::move(histogram)},
      {"common_failures", std::move(failures)},
      {"mistakes", std::move(mistakes)}};
  // By the variant of each student's latest grading (API.md §15): whether one is harder.
  Json variants = Json::array();
  for (const auto& variant : stats.variants) {
    variants.push_back({{"variant", variant.variant},
                        {"students", variant.students},
                        {"students_passed", variant.students_passed}});
  }
  answer["variants"] = std::move(variants);
  return json_response(http::status::ok, dump(answer), version, keep_alive);
}

Response record_unavailable(const Error& error, unsigned version, bool keep_alive) {
  return error_response(
      {ErrorCode::kStoreUnavailable,
       "the record of gradings cannot be read or changed now; try again (the store said: " +
           error.message + ")",
       ""},
      version, keep_alive);
}

}  // namespace headgrader::server

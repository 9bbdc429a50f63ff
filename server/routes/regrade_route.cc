#include "regrade_route.h"

#include <future>
#include <vector>

#include "common/url_encoding.h"
#include "headgrader/grade_request.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "staff_answer_parts.h"
#include "staff_routes.h"

namespace headgrader::server {

Result<bool> parse_regrade_query(std::string_view query) {
  const auto pairs = form_pairs(query);
  if (!pairs) {
    return bad_parameter("",
                         "the query string is not valid: each '%' must be followed by two "
                         "hexadecimal digits");
  }
  std::optional<bool> dry_run;
  for (const auto& [name, value] : *pairs) {
    if (name != "dry_run") {
      return bad_parameter(name, "unknown parameter \"" + name +
                                     "\"; a regrade takes only dry_run=true or dry_run=false");
    }
    if (dry_run) return bad_parameter(name, "dry_run is given twice; give it once");
    if (value != "true" && value != "false") {
      return bad_parameter(name, "dry_run must be true or false; it is \"" + value + "\"");
    }
    dry_run = value == "true";
  }
  return dry_run.value_or(false);
}

Response regrade(const CatalogSnapshot& snapshot, std::string_view problem,
                 const RecordSettings& records, const std::optional<std::string>& staff_key,
                 bool dry_run, unsigned version, bool keep_alive) {
  store::SubmissionStore& store = *records.store;
  auto latest = store.latest_per_student(problem);
  if (!latest) return record_unavailable(latest.error(), version, keep_alive);

  struct Regraded {
    const store::SubmissionRecord* before;
    store::SubmissionRecord after;
  };
  std::vector<Regraded> regraded;
  Json skipped = Json::array();
  const auto skip = [&](const store::SubmissionRecord& before, const Error& error) {
    skipped.push_back({{"student", nullable(before.student)},
                       {"submission_id", before.id},
                       {"error", error_to_json(error)["error"]}});
  };
  for (const store::SubmissionRecord& before : *latest) {
    // A pool's grading is regraded on the member it was of (API.md §15).
    const std::string_view graded_on = before.member.empty() ? problem : before.member;
    const CatalogSnapshot::Entry* found = snapshot.find(graded_on);
    if (found == nullptr) {
      skip(before, {ErrorCode::kNotFound,
                    "it was graded on \"" + std::string(graded_on) +
                        "\", which is no longer a problem served",
                    "member"});
      continue;
    }
    const CatalogSnapshot::Entry& entry = *found;
    // The variant's shapes are the problem's: one check of the matrices serves both.
    Result<Submission> submission = parse_submission(*entry.problem, before.body);
    if (!submission) {  // the problem changed shape: the old matrices no longer fit
      skip(before, submission.error());
      continue;
    }
    // The problem's `variants` changed: the matrices are in coordinates it no longer has.
    Result<ProblemView> view = snapshot.of_variant(entry, before.variant);
    if (!view) {
      skip(before, view.error());
      continue;
    }
    const Graded graded = grade_submission(*view->problem, *submission);
    store::SubmissionRecord r =
        record_of(*view->problem, entry.sha256, graded, before.body, records.now());
    r.student = before.student;
    r.key = staff_key;
    r.regrade_of = before.id;
    r.problem = before.problem;
    r.member = before.member;
    regraded.push_back({&before, std::move(r)});
  }

  // Every commit queued at once (one batch, mostly), then waited for; none in a dry run.
  std::vector<std::promise<Result<store::CommitOutcome>>> promises(regraded.size());
  std::vector<std::future<Result<store::CommitOutcome>>> futures;
  for (std::size_t i = 0; i < regraded.size() && !dry_run; ++i) {
    futures.push_back(promises[i].get_future());
    store.commit(regraded[i].after, std::nullopt,
                 [&promises, i](Result<store::CommitOutcome> outcome) {
                   promises[i].set_value(std::move(outcome));
                 });
  }
  Json changed = Json::array();
  std::optional<Error> failure;
  for (std::size_t i = 0; i < regraded.size(); ++i) {
    if (!dry_run) {
      Result<store::CommitOutcome> outcome = futures[i].get();
      if (!outcome) {
        failure = outcome.error();
        continue;
      }
    }
    const store::SubmissionRecord& before = *regraded[i].before;
    const store::SubmissionRecord& after = regraded[i].after;
    if (before.passed == after.passed && before.score == after.score) continue;
    Json entry = {{"student", nullable(after.student)},
                  {"submission_id", dry_run ? Json(nullptr) : Json(after.id)},
                  {"before", {{"passed", before.passed}, {"score", number_to_json(before.score)}}},
                  {"after", {{"passed", after.passed}, {"score", number_to_json(after.score)}}}};
    if (dry_run) entry["regrade_of"] = before.id;
    changed.push_back(std::move(entry));
  }
  if (failure) return record_unavailable(*failure, version, keep_alive);
  Json answer = {{"regraded", regraded.size()}, {"changed", std::move(changed)}};
  if (!skipped.empty()) answer["skipped"] = std::move(skipped);
  if (dry_run) answer["dry_run"] = true;
  return json_response(http::status::ok, dump(answer), version, keep_alive);
}

}  // namespace headgrader::server

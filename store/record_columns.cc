#include "record_columns.h"

#include <nlohmann/json.hpp>

#include "sql_rows.h"

namespace headgrader::store::columns {
namespace {

using Text = std::optional<std::string>;

std::string failing_inputs_json(const std::vector<std::string>& inputs) {
  return nlohmann::json(inputs).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<std::string> failing_inputs(const Text& text) {
  std::vector<std::string> inputs;
  const auto parsed = nlohmann::json::parse(text.value_or(""), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_array()) {
    for (const auto& input : parsed) {
      if (input.is_string()) inputs.push_back(input.get<std::string>());
    }
  }
  return inputs;
}

// Mistake names are identifiers ([a-z_]): one space between two never splits a name.
std::string mistakes_text(const std::vector<std::string>& mistakes) {
  std::string text;
  for (const std::string& name : mistakes) text += (text.empty() ? "" : " ") + name;
  return text;
}

SqlValue tag_field(const SubmissionRecord& r, std::string IdempotencyTag::*field) {
  if (!r.idempotency) return std::monostate{};
  return (*r.idempotency).*field;
}

}  // namespace

std::vector<std::string> mistakes(const std::optional<std::string>& text) {
  std::vector<std::string> names;
  const std::string all = text.value_or("");
  for (std::size_t start = 0; start < all.size();) {
    const std::size_t end = std::min(all.find(' ', start), all.size());
    if (end > start) names.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

// The order is the decoder's and the binds' (and the INSERT's $n); the migrations fix the
// table's own order, which no statement relies on.
const std::array<RecordColumn, kRecordColumnCount> kRecordColumns = {{
    {"id", true, [](const SubmissionRecord& r) -> SqlValue { return r.id; },
     [](SubmissionRecord& r, const Text& t) { r.id = t.value_or(""); }},
    {"time_ms", true, [](const SubmissionRecord& r) -> SqlValue { return r.time; },
     [](SubmissionRecord& r, const Text& t) { r.time = rows::integer(t); }},
    {"problem", true, [](const SubmissionRecord& r) -> SqlValue { return r.problem; },
     [](SubmissionRecord& r, const Text& t) { r.problem = t.value_or(""); }},
    {"problem_sha256", true, [](const SubmissionRecord& r) -> SqlValue { return r.problem_sha256; },
     [](SubmissionRecord& r, const Text& t) { r.problem_sha256 = t.value_or(""); }},
    {"student", true, [](const SubmissionRecord& r) { return sql_text(r.student); },
     [](SubmissionRecord& r, const Text& t) { r.student = t; }},
    {"key_name", true, [](const SubmissionRecord& r) { return sql_text(r.key); },
     [](SubmissionRecord& r, const Text& t) { r.key = t; }},
    {"body", false, [](const SubmissionRecord& r) -> SqlValue { return r.body; },
     [](SubmissionRecord& r, const Text& t) { r.body = t.value_or(""); }},
    {"passed", true,
     [](const SubmissionRecord& r) -> SqlValue { return std::int64_t{r.passed ? 1 : 0}; },
     [](SubmissionRecord& r, const Text& t) { r.passed = rows::integer(t) != 0; }},
    {"score", true, [](const SubmissionRecord& r) -> SqlValue { return r.score; },
     [](SubmissionRecord& r, const Text& t) { r.score = rows::real(t); }},
    {"tests_total", true, [](const SubmissionRecord& r) -> SqlValue { return r.tests_total; },
     [](SubmissionRecord& r, const Text& t) { r.tests_total = rows::integer(t); }},
    {"tests_passed", true, [](const SubmissionRecord& r) -> SqlValue { return r.tests_passed; },
     [](SubmissionRecord& r, const Text& t) { r.tests_passed = rows::integer(t); }},
    {"tests_failed", true, [](const SubmissionRecord& r) -> SqlValue { return r.tests_failed; },
     [](SubmissionRecord& r, const Text& t) { r.tests_failed = rows::integer(t); }},
    {"failing_inputs", true,
     [](const SubmissionRecord& r) -> SqlValue { return failing_inputs_json(r.failing_inputs); },
     [](SubmissionRecord& r, const Text& t) { r.failing_inputs = failing_inputs(t); }},
    {"answer", false, [](const SubmissionRecord& r) -> SqlValue { return r.answer; },
     [](SubmissionRecord& r, const Text& t) { r.answer = t.value_or(""); }},
    {"regrade_of", true, [](const SubmissionRecord& r) { return sql_text(r.regrade_of); },
     [](SubmissionRecord& r, const Text& t) { r.regrade_of = t; }},
    // A tag is read when its scope and key are both there (its body hash may be NULL: "").
    {"idem_scope", true,
     [](const SubmissionRecord& r) { return tag_field(r, &IdempotencyTag::scope); },
     [](SubmissionRecord& r, const Text& t) {
       r.idempotency.reset();
       if (t) r.idempotency = IdempotencyTag{*t, "", ""};
     }},
    {"idem_key", true, [](const SubmissionRecord& r) { return tag_field(r, &IdempotencyTag::key); },
     [](SubmissionRecord& r, const Text& t) {
       if (r.idempotency && t) {
         r.idempotency->key = *t;
       } else {
         r.idempotency.reset();
       }
     }},
    {"idem_body_sha256", true,
     [](const SubmissionRecord& r) { return tag_field(r, &IdempotencyTag::body_sha256); },
     [](SubmissionRecord& r, const Text& t) {
       if (r.idempotency) r.idempotency->body_sha256 = t.value_or("");
     }},
    {"lms_context", true, [](const SubmissionRecord& r) { return sql_text(r.lms_context); },
     [](SubmissionRecord& r, const Text& t) { r.lms_context = t; }},
    {"lms_resource_link", true,
     [](const SubmissionRecord& r) { return sql_text(r.lms_resource_link); },
     [](SubmissionRecord& r, const Text& t) { r.lms_resource_link = t; }},
    {"mistakes", true,
     [](const SubmissionRecord& r) -> SqlValue { return mistakes_text(r.mistakes); },
     [](SubmissionRecord& r, const Text& t) { r.mistakes = mistakes(t); }},
    {"variant", true, [](const SubmissionRecord& r) -> SqlValue { return r.variant; },
     [](SubmissionRecord& r, const Text& t) { r.variant = t.value_or(""); }},
    {"member", true, [](const SubmissionRecord& r) -> SqlValue { return r.member; },
     [](SubmissionRecord& r, const Text& t) { r.member = t.value_or(""); }},
}};

const std::string& select_list() {
  static const std::string list = [] {
    std::string text;
    for (const RecordColumn& column : kRecordColumns) {
      text += (text.empty() ? "" : ", ") + std::string(column.name);
    }
    return text;
  }();
  return list;
}

const std::string& list_select_list() {
  static const std::string list = [] {
    std::string text;
    for (const RecordColumn& column : kRecordColumns) {
      text += (text.empty() ? "" : ", ") + (column.listed ? std::string(column.name) : "''");
    }
    return text;
  }();
  return list;
}

const std::string& body_select_list() {
  static const std::string list = [] {
    std::string text;
    for (const RecordColumn& column : kRecordColumns) {
      const bool read = column.listed || column.name == "body";
      text += (text.empty() ? "" : ", ") + (read ? std::string(column.name) : "''");
    }
    return text;
  }();
  return list;
}

const std::string& insert_list() {
  static const std::string list = "(" + select_list() + ")";
  return list;
}

std::vector<SqlValue> binds(const SubmissionRecord& record) {
  std::vector<SqlValue> values;
  values.reserve(kRecordColumns.size());
  for (const RecordColumn& column : kRecordColumns) values.push_back(column.bind(record));
  return values;
}

SubmissionRecord record(const SqlRow& row, std::size_t first) {
  SubmissionRecord r;
  for (std::size_t i = 0; i < kRecordColumns.size(); ++i) kRecordColumns[i].read(r, row[first + i]);
  return r;
}

}  // namespace headgrader::store::columns

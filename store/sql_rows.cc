#include "sql_rows.h"

#include <charconv>
#include <nlohmann/json.hpp>

namespace headgrader::store::rows {

std::int64_t integer(const std::optional<std::string>& text) {
  std::int64_t value = 0;
  if (text) std::from_chars(text->data(), text->data() + text->size(), value);
  return value;
}

double real(const std::optional<std::string>& text) {
  double value = 0;
  if (text) std::from_chars(text->data(), text->data() + text->size(), value);
  return value;
}

SubmissionRecord record(const SqlRow& row, std::size_t first) {
  const auto at = [&](std::size_t i) -> const std::optional<std::string>& {
    return row[first + i];
  };
  const auto text = [&](std::size_t i) { return at(i).value_or(""); };
  SubmissionRecord r;
  r.id = text(0);
  r.time = integer(at(1));
  r.problem = text(2);
  r.problem_sha256 = text(3);
  r.student = at(4);
  r.key = at(5);
  r.body = text(6);
  r.passed = integer(at(7)) != 0;
  r.score = real(at(8));
  r.tests_total = integer(at(9));
  r.tests_passed = integer(at(10));
  r.tests_failed = integer(at(11));
  const auto inputs = nlohmann::json::parse(text(12), nullptr, /*allow_exceptions=*/false);
  if (inputs.is_array()) {
    for (const auto& input : inputs) {
      if (input.is_string()) r.failing_inputs.push_back(input.get<std::string>());
    }
  }
  r.answer = text(13);
  r.regrade_of = at(14);
  if (at(15) && at(16)) r.idempotency = IdempotencyTag{text(15), text(16), text(17)};
  r.lms_context = at(18);
  r.lms_resource_link = at(19);
  return r;
}

}  // namespace headgrader::store::rows

// Shared by the tests of submissions (tests/engine/submission_test.cc,
// submission_json_test.cc; API.md §5): the bundled consonant-anywhere problem (n_e = 2,
// n_v = 2), a body's error as "code | field | message", and the handout's solution with one
// key changed.
#pragma once

#include <string>
#include <string_view>

#include "headgrader/problem.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "test_support.h"

namespace headgrader::testing {

inline const Problem& consonant_anywhere() { return bundled("consonant-anywhere"); }

// The error of parsing `body` against `problem`, as "code | field | message"; the field
// part is empty when no key is at fault and "" (two quotes) when the key at fault is "".
inline std::string error_of(const Problem& problem, std::string_view body) {
  auto result = parse_submission(problem, body);
  if (result.ok()) return "accepted";
  const auto& e = result.error();
  const std::string field = e.has_field() && e.field.empty() ? "\"\"" : e.field;
  return std::string(code_name(e.code)) + " | " + field + " | " + e.message;
}

inline std::string error_of(std::string_view body) { return error_of(consonant_anywhere(), body); }

// The solution with `key` set to the JSON text `value` (added when absent).
inline std::string solution_with(const std::string& key, const std::string& value) {
  auto body = Json::parse(kHandoutSolution);
  body[key] = Json::parse(value);
  return body.dump();
}

}  // namespace headgrader::testing

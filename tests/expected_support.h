// Shared by the tests of the `expected` language (tests/engine/expected_test.cc,
// expected_syntax_test.cc): the handout's alphabet a…z with its classes, and an expression's
// values on a string, or its rendered syntax error.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "headgrader/expected.h"

namespace headgrader::testing {

using Outputs = std::vector<std::vector<double>>;

// The handout's alphabet a…z with its two classes, in the order of a problem file.
inline const ClassTable& letters() {
  static const ClassTable table = [] {
    ClassTable t;
    t.alphabet_size = 26;
    t.names = {"consonant", "vowel"};
    t.members.assign(2, std::vector<bool>(26, false));
    for (int token = 0; token < 26; ++token) {
      const bool vowel =
          std::string_view("aeiou").find(static_cast<char>('a' + token)) != std::string_view::npos;
      t.members[vowel ? 1 : 0][token] = true;
    }
    return t;
  }();
  return table;
}

inline std::vector<int> tokens_of(std::string_view s) {
  std::vector<int> tokens;
  for (char c : s) tokens.push_back(c - 'a');
  return tokens;
}

// Evaluates `expression` at every position of `input`; the first fault, if any, stops it.
struct Evaluation {
  Outputs outputs;
  std::optional<EvaluationFault> fault;
};
inline Evaluation run(std::string_view expression, std::string_view input) {
  Evaluation result;
  auto parsed = parse_expected(expression, letters());
  if (const auto* error = std::get_if<ExpectedSyntaxError>(&parsed)) {
    ADD_FAILURE() << error->render(expression);
    return result;
  }
  const Expected& expected = std::get<Expected>(parsed);
  const std::vector<int> tokens = tokens_of(input);
  std::vector<int> counts(letters().names.size());
  for (std::size_t i = 1; i <= tokens.size(); ++i) {
    const std::span<const int> prefix(tokens.data(), i);
    count_classes(letters(), prefix, counts);
    std::vector<double> out(expected.output_size());
    result.fault = expected.evaluate({prefix, counts}, out);
    if (result.fault) break;
    result.outputs.push_back(out);
  }
  return result;
}
inline Outputs outputs(std::string_view expression, std::string_view input) {
  Evaluation r = run(expression, input);
  EXPECT_FALSE(r.fault) << expression << " faults at column " << r.fault->column;
  return r.outputs;
}
// The value of a scalar expression at the last position of `input`.
inline double value(std::string_view expression, std::string_view input = "a") {
  const Outputs all = outputs(expression, input);
  if (all.empty() || all.back().size() != 1) {
    ADD_FAILURE() << expression << " gives no scalar";
    return NAN;
  }
  return all.back()[0];
}
// The rendered syntax error, or "parsed" when there is none.
inline std::string error(std::string_view expression) {
  auto parsed = parse_expected(expression, letters());
  const auto* e = std::get_if<ExpectedSyntaxError>(&parsed);
  return e ? e->render(expression) : "parsed";
}

}  // namespace headgrader::testing

// Checking a student's by-hand work (the handout's Part C; API.md §10): for their own weights
// and a string of their choice, each step they typed (Q, K, V, scores, masked scores,
// attention, output) is judged against what that step gives from their own earlier steps
// (follow-on marking), so one slip is marked once, where it happened.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "headgrader/attention.h"
#include "headgrader/problem.h"

namespace headgrader {

// The steps in the order they are computed; also the order of the answer's keys.
inline constexpr const char* kStepNames[7] = {"Q",         "K",     "V", "scores", "masked_scores",
                                              "attention", "output"};

// The tolerance of one typed number: 1e-3, or half a unit of its last decimal when that is
// larger (so "0.3" for 0.3326 is right: it is 0.3326 rounded to one decimal). A number typed
// without decimals ("5", "0", "1e2") is held to 1e-3: it claims to be exact. Decimals count
// the digits after the point less the exponent ("3.3e-1" has 2).
double typed_tolerance(int decimals);

struct StepCheck {
  std::string name;  // one of kStepNames
  bool correct = true;
  std::vector<std::pair<int, int>> wrong;  // (row, column), 1-based, row-major order
  Matrix expected;                         // from the student's earlier steps; −∞ = masked
};

struct StepsReport {
  std::string input;
  std::vector<StepCheck> steps;  // only the steps sent, in kStepNames order
  bool reveal = false;           // whether the answer carries each step's `expected`

  // The first step that is not correct, or nullopt.
  std::optional<std::string> first_wrong() const;
};

// Parses a check-steps body against `problem` and judges it. The weights are read exactly as
// for grading (same names, aliases and messages; `student` allowed), beside `input` (a string
// of 1..limits::kMaxStringLength letters of the alphabet, at most W_P's columns), `steps` (an
// object of any of kStepNames, each a matrix of numbers with null allowed; shapes L × n_q for
// Q and K, L × n_v for V and output, L × L for the rest) and `reveal` (bool, default false).
// Errors: those of parse_submission, and missing_field, wrong_type, wrong_shape,
// unknown_field, out_of_range for input, steps and reveal (field = that key).
Result<StepsReport> check_steps(const Problem& problem, std::string_view body);

// The answer of API.md §10: {"input", "first_wrong", "steps": {name: {"correct",
// "wrong_entries"[, "expected"]}}}, `expected` (null at masked entries) only with reveal.
std::string steps_report_json(const StepsReport& report);

}  // namespace headgrader

// A student's submission (API.md §5): the body is checked before anything is computed, and
// each way it can be wrong has its own error, naming the field as sent and saying in plain
// words what was expected and what came (`W_q must have 2 columns (one per embedding
// feature, n_e = 2); it has 3`). Nesting depth and duplicate keys are checked on the
// JSON's SAX events before they reach the tree, so a hostile body never builds a deep one.
// The rules are one table, grader/submission_rules.h. A well-formed body is read straight
// from those events, with no tree at all; anything else is read again through the tree for
// its error (grader/submission_readers.h).
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "headgrader/attention.h"
#include "headgrader/problem.h"

namespace headgrader {

struct Submission {
  HeadWeights weights;  // the submitted matrices with the problem's `given`
  int max_failures = 3;
  std::optional<std::string> student;
};

// Parses a request body against `problem`. Errors: invalid_json, too_deep, not_an_object,
// missing_field, unknown_field, duplicate_field, wrong_type, wrong_shape, out_of_range.
Result<Submission> parse_submission(const Problem& problem, std::string_view body);

// The `student` of a body, before it is known which problem it is for (a pool's member is
// drawn from it, API.md §15): nullopt when the body is not a JSON object (by the same checked
// parser, so a hostile body costs no more here) or its `student` is not a string. The body is
// then parsed against the problem, which refuses what is wrong with it.
std::optional<std::string> submission_student(std::string_view body);

}  // namespace headgrader

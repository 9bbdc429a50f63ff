// The two readers of a submission body behind parse_submission, both applying the rules of
// grader/submission_rules.h. Most bodies are well-formed, and for them a tree of the JSON
// (built, walked, freed) is most of the parse and, for the handout's solution, over a quarter
// of a grade request's engine time (docs/benchmarks.md): read_submission_events reads such a
// body straight from nlohmann's SAX events into the matrices. It gives up at the first event
// a rule refuses, and read_submission_tree, which builds the tree and words every fault,
// answers instead. So the tree reader alone decides every error, and both must agree on every
// body the first one accepts (tests/engine/submission_readers_test.cc and the submission fuzzer
// check it).
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string_view>

#include "headgrader/problem.h"
#include "headgrader/result.h"
#include "headgrader/submission.h"

namespace headgrader {

// A submission whose every key, value and shape follows the rules; nullopt for anything else
// (including valid bodies it does not handle, such as one with a key given twice).
std::optional<Submission> read_submission_events(const Problem& problem, std::string_view body);

// The whole check, through a tree of the JSON: the result, or the first fault in the order
// a student would fix things.
Result<Submission> read_submission_tree(const Problem& problem, std::string_view body);

// Same matrices (shapes and bits), max_failures and student.
bool same_submission(const Submission& a, const Submission& b);

}  // namespace headgrader

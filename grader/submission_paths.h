// The two ways parse_submission reads a body. Most bodies are well-formed, and for them a
// tree of the JSON (built, walked, freed) was a tenth of a grading request's server time:
// parse_well_formed_submission reads such a body straight from its SAX events into the
// matrices. It gives up at the first thing it does not expect, and parse_submission_tree,
// which builds the tree and words every fault, answers instead. So the tree path alone
// decides every error, and both paths must agree on every body the first one accepts
// (tests/submission_test.cc and the submission fuzzer check it).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "headgrader/report.h"
#include "headgrader/submission.h"

namespace headgrader {

// A submission whose every key, value and shape is as the problem asks; nullopt for anything
// else (including valid bodies it does not handle, such as one with a key given twice).
std::optional<Submission> parse_well_formed_submission(const Problem& problem,
                                                       std::string_view body);

// The whole check, through a tree of the JSON: the result, or the first fault in the order
// a student would fix things.
Result<Submission> parse_submission_tree(const Problem& problem, std::string_view body);

// Same matrices (shapes and bits), max_failures and student.
bool same_submission(const Submission& a, const Submission& b);

// "W_q" for "W_q" or "W_Q", and so on (API.md §5); nullptr for any other key.
const char* canonical_weight_name(std::string_view key);

// max_failures: a whole number from 0 to limits::kMaxMaxFailures (3.0 and 1e1 count).
Result<int> parse_max_failures(const Json& value);

// How the matrices must fit the problem: columns n_e, W_V rows n_v, W_q and W_k rows n_q.
// `sent_as[k]` is the name kWeightNames[k] was sent under (for the messages), empty when it
// was not sent.
std::optional<Error> check_shapes(const Problem& problem, const HeadWeights& weights,
                                  const std::array<std::string, 3>& sent_as);

}  // namespace headgrader

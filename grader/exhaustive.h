// Grading the exhaustive set (every string of length 1..exhaustive_length over the
// representatives). A causal head's output at position i depends only on s_1 … s_i, so a
// failing prefix fails its whole subtree: the set is counted over count states by the judge
// (prefix_judge.h) when verdicts depend on counts alone, and otherwise walked as a tree of
// prefixes, each computed once. Without the causal mask every string is judged whole, each
// from its parent's rows (unmasked_judge.h).
// The result is exactly that of evaluating each string on its own (grade_each_string).
#pragma once

#include <cstdint>

#include "failure_collector.h"
#include "headgrader/problem.h"
#include "prefix_judge.h"
#include "unmasked_judge.h"

namespace headgrader {

// Adds the failing exhaustive strings that could make the report to `failures`; returns how
// many exhaustive strings fail. For a causal head, with its judge.
std::uint64_t grade_exhaustive(const Problem& problem, PrefixJudge& judge,
                               FailureCollector& failures);
// The same for a head without the mask.
std::uint64_t grade_exhaustive(const Problem& problem, UnmaskedJudge& judge,
                               FailureCollector& failures);

}  // namespace headgrader

// Grading the exhaustive set (every string of length 1..exhaustive_length over the
// representatives). A causal head's output at position i depends only on s_1 … s_i, so a
// failing prefix fails its whole subtree: the set is counted over count states by the judge
// (prefix_judge.h) when verdicts depend on counts alone, and otherwise walked as a tree of
// prefixes, each computed once. Without the causal mask each string is run on its own.
// The result is exactly that of evaluating each string on its own (grade_each_string).
#pragma once

#include <cstdint>

#include "failure_collector.h"
#include "headgrader/problem.h"
#include "prefix_judge.h"

namespace headgrader {

// Adds the failing exhaustive strings that could make the report to `failures`; returns how
// many exhaustive strings fail. `judge` is required for a
// causal head and must be null otherwise (each string is then run on its own).
std::uint64_t grade_exhaustive(const Problem& problem, const HeadWeights& weights,
                               PrefixJudge* judge, FailureCollector& failures);

}  // namespace headgrader

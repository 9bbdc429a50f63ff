// Grading the exhaustive set (every string of length 1..exhaustive_length over the
// representatives) as a tree of prefixes. A causal head's output at position i depends only
// on s_1 … s_i, so each prefix is computed once and a failing prefix fails its whole
// subtree. Without a position embedding the new row needs only the prefix's count of each
// group: extending a prefix costs O(groups × n_v), not O(length).
// The result is exactly that of evaluating each string on its own (grade_each_string).
#pragma once

#include <cstdint>

#include "headgrader/problem.h"
#include "prefix_walk.h"

namespace headgrader {

// Adds the failing exhaustive strings that could make the report to `failures`; returns how
// many exhaustive strings fail.
std::uint64_t grade_exhaustive(const Problem& problem, const HeadWeights& weights,
                               FailureCollector& failures);

}  // namespace headgrader

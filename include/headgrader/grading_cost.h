// What one grading of a problem costs at most, estimated from the problem alone (before the
// submission is read), so that the server can run the costly ones off the threads that read
// and write (limits::kLongGradingCost). The unit is one multiply-add of the attention rows
// that the grading may compute, with the submission as large as the contract allows (n_q =
// limits::kMaxMatrixRows): a submission chooses n_q, so the estimate cannot trust a small one.
// Thread-safety: a pure function.
#pragma once

#include <cstdint>

#include "headgrader/problem.h"

namespace headgrader {

// 0 for a problem graded over its count states (microseconds at any length). Otherwise, for
// every tested string or shared prefix of length L the rows computed: L of them (causal
// heads share prefixes, one new row each; a head that is not causal recomputes every row,
// L² in all), each of L scores and values of n_q + n_v numbers. Saturates at UINT64_MAX.
std::uint64_t grading_cost(const Problem& problem);

}  // namespace headgrader

// What one grading of a problem costs at most, estimated from the problem alone (before the
// submission is read), and what writing its answer costs, estimated once the submission is
// read, so that the server can run the costly ones off the threads that read and write
// (limits::kLongGradingCost, limits::kLongAnswerNumbers). The unit is one multiply-add of the
// attention rows that the grading may compute, with the submission as large as the contract allows
// (n_q = limits::kMaxMatrixRows): a submission chooses n_q, so the estimate cannot trust a small
// one. Thread-safety: a pure function.
#pragma once

#include <cstdint>

#include "headgrader/problem.h"
#include "headgrader/submission.h"

namespace headgrader {

// 0 for a problem graded over its count states (microseconds at any length). Otherwise, for
// every tested string or shared prefix of length L the rows computed: L of them (causal
// heads share prefixes, one new row each; a head that is not causal recomputes every row,
// L² in all), each of L scores and values of n_q + n_v numbers. Saturates at UINT64_MAX.
std::uint64_t grading_cost(const Problem& problem);

// The numbers that the answer to grading `submission` may hold at most (report_json): each
// of the first min(max_failures, tested strings) failures shows its whole trace, L × (n_e +
// 2 n_q + 4 n_v + 1) numbers (the failing positions among them) and three L × L matrices at
// the longest tested length L, and its max_error; each example its expected and output rows.
// Writing one number and computing its share of the trace takes about 100 ns on the
// development VM: a failing answer with max_failures 100 on a problem with max_length 64 is
// 1.3 million numbers (7 MB, a third of a second), the same on the bundled problems
// (max_length 8) about 30 000 at n_q = 1. Saturates.
std::uint64_t answer_cost(const Problem& problem, const Submission& submission);

}  // namespace headgrader

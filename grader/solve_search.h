// The search behind `headgrader solve` (headgrader/solve.h): Adam steps on a smoothed margin
// loss over a working set of strings, from seeded starts, then the scores scaled up; the
// exact grader judges every candidate and adds the strings it fails to the working set.
// The arithmetic is plain loops in a fixed order with portable_exp (as grader/attention.cc),
// and nothing depends on the clock but whether another round starts: the same problem gives
// the same candidates on every machine.
// Thread-safety: pure functions of their arguments.
#pragma once

#include <chrono>
#include <optional>

#include "headgrader/grade.h"
#include "headgrader/problem.h"

namespace headgrader {

struct SearchOutcome {
  HeadWeights best;    // the passing head, or the one that passed the most strings
  GradeReport report;  // the grader's report of `best`
  bool deadline_hit = false;
};

// Searches heads with W_q and W_k of `n_q` rows (the given matrices kept as given).
// `deadline` is looked at only between rounds.
SearchOutcome search_head(const Problem& problem, int n_q,
                          std::chrono::steady_clock::time_point deadline);

}  // namespace headgrader

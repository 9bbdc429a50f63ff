// Grading (API.md §4, §5): run a head on every tested string of a problem, compare with
// `expected` within the tolerance, and keep what the report needs: the counts, each example,
// and the first failures (shortest first, then in alphabet order) with their full traces.
// Thread-safety: grade() is a pure function of its arguments; call it from any thread.
#pragma once

#include <cstdint>
#include <vector>

#include "headgrader/attention.h"
#include "headgrader/problem.h"

namespace headgrader {

struct ExampleResult {
  TokenString input;
  bool passed = false;
  std::vector<int> failing_positions;  // 1-based; empty when passed
  Matrix expected;  // L × n_v
  Matrix output;    // L × n_v
};

struct Failure {
  TokenString input;
  std::vector<int> failing_positions;  // 1-based
  double max_error = 0;                // max |output − expected| over every component
  Matrix expected;
  AttentionTrace trace;
};

struct GradeReport {
  std::string problem;
  bool passed = false;
  double score = 0;            // passed / total
  std::uint64_t total = 0, passed_count = 0, failed = 0;
  std::vector<ExampleResult> examples;  // in the problem's order
  std::vector<Failure> failures;        // first min(max_failures, failed), shortlex order
};

// Precondition: `weights` fit the problem (as parse_submission guarantees). Walks the
// exhaustive set as a tree of prefixes; a causal head without W_P costs O(groups × n_v) per
// prefix, so every string up to length 24 over two groups takes well under a second.
GradeReport grade(const Problem& problem, const HeadWeights& weights, int max_failures);

// The same report computed by the definition: every tested string run on its own through
// run_head. grade() must equal it exactly; it is kept for tests and as the benchmark
// baseline. Much slower: O(L²) per string.
GradeReport grade_each_string(const Problem& problem, const HeadWeights& weights,
                              int max_failures);

// Whether every position of run_head(tokens) is within the tolerance of `expected`.
bool string_passes(const Problem& problem, const HeadWeights& weights, const TokenString& tokens);

// The expected output of `problem` for `tokens` (L × n_v). Precondition: the problem loaded,
// so evaluation cannot fault on its tested strings; on any other string a fault yields NaN.
Matrix expected_output(const Problem& problem, const TokenString& tokens);

}  // namespace headgrader

// Grading (API.md §4, §5): run a head on every tested string of a problem, compare with
// `expected` within the tolerance, and keep what the report needs: the counts, each example,
// and the first failures (shortest first, then in alphabet order) with their full traces.
// Thread-safety: grade() is a pure function of its arguments; call it from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "headgrader/attention.h"
#include "headgrader/problem.h"

namespace headgrader {

struct ExampleResult {
  TokenString input;
  bool passed = false;
  std::vector<int> failing_positions;  // 1-based; empty when passed
  Matrix expected;                     // L × n_v
  Matrix output;                       // L × n_v
};

struct Failure {
  TokenString input;
  std::vector<int> failing_positions;  // 1-based
  double max_error = 0;                // max |output − expected| over every component
  Matrix expected;
  AttentionTrace trace;
};

// A mistake proven by grading a changed copy of the submission (API.md §13; diagnosis.h).
struct Diagnosis {
  std::string mistake;  // e.g. "key_too_soft"
  std::string message;  // what was proven, in plain words
  std::string hint;     // what to change
};

// How far inside the tolerance a passing head stayed (API.md §13; diagnosis.h).
struct Margin {
  double worst_error = 0;  // largest |output − expected| over every tested position
  double tolerance = 0;
  double slack = 0;  // tolerance − worst_error
  // The smallest gap between a query's highest score and its next-highest distinct one
  // (margin_of in diagnosis.h); none when every query sees equal scores (uniform attention).
  std::optional<double> score_gap;
};

struct GradeReport {
  std::string problem;
  bool passed = false;
  double score = 0;  // passed / total
  std::uint64_t total = 0, passed_count = 0, failed = 0;
  std::vector<ExampleResult> examples;  // in the problem's order
  std::vector<Failure> failures;        // first min(max_failures, failed), shortlex order
  // The largest |output − expected| over the positions grading judged: when passed, over
  // every tested position. Not in the JSON itself; the margin reports it.
  double worst_error = 0;
  // Filled by grade_with_diagnosis only (diagnosis.h): for a failing head the mistakes
  // proven and the ones the time budget left untried; for a passing one its margin.
  std::vector<Diagnosis> diagnosis;
  std::vector<std::string> diagnosis_not_tried;
  std::optional<Margin> margin;
};

// Precondition: `weights` fit the problem (as parse_submission guarantees). Walks the
// exhaustive set as a tree of prefixes; a causal head without W_P costs O(groups × n_v) per
// prefix, so every string up to length 24 over two groups takes well under a second.
GradeReport grade(const Problem& problem, const HeadWeights& weights, int max_failures);

// The same report computed by the definition: every tested string run on its own through
// run_head. grade() must equal it exactly; it is kept for tests and as the benchmark
// baseline. Much slower: O(L²) per string.
GradeReport grade_each_string(const Problem& problem, const HeadWeights& weights, int max_failures);

// grade(problem, weights, 0).passed, stopping at the first failing string and keeping no
// report: what a diagnosis asks of each changed copy of a head.
bool passes_every_tested_string(const Problem& problem, const HeadWeights& weights);

// Whether every position of run_head(tokens) is within the tolerance of `expected`.
bool string_passes(const Problem& problem, const HeadWeights& weights, const TokenString& tokens);

// The expected output of `problem` for `tokens` (L × n_v). Precondition: the problem loaded,
// so evaluation cannot fault on its tested strings; on any other string a fault yields NaN.
Matrix expected_output(const Problem& problem, const TokenString& tokens);

}  // namespace headgrader

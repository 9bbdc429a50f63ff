// A grade split by kind of tested string (API.md §4), as course platforms show it: one test
// for the problem's examples, one for the exhaustive set, one for the random strings. Each
// kind has its count, how many fail and, for a person, its first failing string with the
// expected and actual rows. The counts are of distinct strings, so they add up to the grade's
// `tests` (an example that the exhaustive set already holds is counted there).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "headgrader/grade.h"
#include "headgrader/problem.h"

namespace headgrader::cli {

struct StringKindResult {
  std::string kind;   // "examples", "exhaustive" or "random"
  std::string title;  // e.g. "every string up to length 8 (510 strings)"
  std::uint64_t total = 0, failed = 0;
  std::string first_failure;  // "" when none fails: the string and its rows, several lines
};

// The kinds that hold at least one tested string, in the order examples, exhaustive, random.
// `report` is grade(problem, weights, …) with max_failures ≥ 1 when anything failed: its
// first failure is the first failing exhaustive string when there is one (a failing string
// over other tokens of the same groups has the same verdict and sorts after it).
std::vector<StringKindResult> results_by_kind(const Problem& problem, const HeadWeights& weights,
                                              const GradeReport& report);

// How a failure reads, for the top of a platform's output: what the rows are, what the
// tolerance means, what "<- wrong" marks.
std::string how_to_read_a_failure(const Problem& problem);

}  // namespace headgrader::cli

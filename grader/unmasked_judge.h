// Judging whole strings of a head without the causal mask (API.md §1: `causal: false`). Each
// row then depends on the whole string, so only complete strings are judged, but a string
// shown after its parent (a depth-first walk: every tested string of the exhaustive set is
// the parent of the next longer ones) costs O(length) instead of O(length²): each row's
// softmax sums are its parent string's row plus one term (prefix_head.h's running sums),
// and `expected`'s rows are the parent's plus one. Rows are judged with the fast rows'
// margin; a string with a row too close to call (or whose fast rows decline) is judged
// exactly as string_passes does. Verdicts equal string_passes's on every string.
#pragma once

#include <span>
#include <vector>

#include "headgrader/problem.h"
#include "prefix_expected.h"
#include "prefix_head.h"

namespace headgrader {

class UnmaskedJudge {
 public:
  UnmaskedJudge(const Problem& problem, const HeadWeights& weights);

  // Whether every position of `s` passes (any string; cheapest right after its parent).
  bool string_passes(std::span<const int> s);
  // The largest |output − expected| over every row judged (NaN once one was NaN): after a
  // grade that passed, the worst error over every tested position. A row judged by its fast
  // value counts that value, which may differ from run_head's in the last bits.
  double worst_error() const { return worst_; }

 private:
  // `expected`'s rows of s: kept from the string before up to where s differs from it.
  void expected_rows(std::span<const int> s);
  bool exactly_passes(std::span<const int> s);
  void note_error(const double* out, const double* expected);

  const Problem& p_;
  const HeadWeights& w_;
  PrefixHead rows_;
  PrefixExpected expected_;
  std::vector<int> last_;     // the string whose expected rows are in want_
  std::vector<double> want_;  // [position * n_v + c]
  std::vector<double> out_;   // one row
  double worst_ = 0;
};

}  // namespace headgrader

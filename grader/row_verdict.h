// One row of the head's output against `expected`'s row at the same position: it passes when
// every component is within the problem's tolerance (API.md §2). The fast paths of grading
// sum in another order than run_head, so they judge with a margin: a row within it of the
// tolerance is too close to call, and is computed again exactly.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace headgrader {

// kUnknown: not judged yet (an empty slot of a memo, never a judge's answer).
enum class Verdict : signed char { kUnknown = -1, kPass, kFail, kTooClose };

// The verdict of a row whose largest |out − expected| is `error` (NaN fails): kFail over
// tolerance + margin, kTooClose within `margin` of the tolerance. A margin > 0 (`out` only
// that close to the exact row) is widened by a few units in the last place of the tolerance:
// the subtraction and the comparison round too, and with a large tolerance that rounding can
// exceed the margin itself.
inline Verdict verdict_of(double error, double tolerance, double margin) {
  if (margin > 0) margin += 4 * std::numeric_limits<double>::epsilon() * tolerance;
  if (!(error <= tolerance + margin)) return Verdict::kFail;
  return error > tolerance - margin ? Verdict::kTooClose : Verdict::kPass;
}

// |out − expected| against the tolerance, component by component: kFail as soon as one is
// over tolerance + margin (NaN fails too), kTooClose when one is within `margin` of the
// tolerance and none fails; verdict_of of the largest component's error.
inline Verdict judge(const double* out, const double* expected, std::size_t n_v, double tolerance,
                     double margin) {
  Verdict verdict = Verdict::kPass;
  for (std::size_t c = 0; c < n_v; ++c) {
    const Verdict here = verdict_of(std::fabs(out[c] - expected[c]), tolerance, margin);
    if (here == Verdict::kFail) return here;
    if (here == Verdict::kTooClose) verdict = here;
  }
  return verdict;
}

// The larger of a worst error so far and a new one, NaN once either is NaN (a NaN row is the
// worst there is, and std::max would drop it).
inline double worst_of(double worst, double error) {
  return std::isnan(error) || std::isnan(worst) ? NAN : std::max(worst, error);
}

// max |out − expected| over the row's components (NaN when one is NaN): what a margin reports.
inline double row_error(const double* out, const double* expected, std::size_t n_v) {
  double worst = 0;
  for (std::size_t c = 0; c < n_v; ++c) worst = worst_of(worst, std::fabs(out[c] - expected[c]));
  return worst;
}

}  // namespace headgrader

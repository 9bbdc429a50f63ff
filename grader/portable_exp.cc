#include "portable_exp.h"

#include <cmath>
#include <limits>

namespace headgrader {
namespace {
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kInvLn2 = 1.44269504088896338700e+00;
constexpr double kP1 = 1.66666666666666019037e-01;
constexpr double kP2 = -2.77777777770155933842e-03;
constexpr double kP3 = 6.61375632143793436117e-05;
constexpr double kP4 = -1.65339022054652515390e-06;
constexpr double kP5 = 4.13813679705723846039e-08;
constexpr double kOverflow = 7.09782712893383973096e+02;
constexpr double kUnderflow = -7.45133219101941108420e+02;
}  // namespace

double portable_exp(double x) {
  if (std::isnan(x)) return x;
  if (x > kOverflow) return std::numeric_limits<double>::infinity();
  if (x < kUnderflow) return 0.0;
  if (std::fabs(x) < 0x1p-28) return 1.0 + x;

  // Reduce: x = k·ln2 + r with |r| ≤ ln2/2, r carried as hi − lo for extra precision.
  const double k = round_to_nearest_even(x * kInvLn2);  // |x · 1/ln2| < 1100
  const double hi = x - k * kLn2Hi;
  const double lo = k * kLn2Lo;
  const double r = hi - lo;

  // exp(r) = 1 + r + r·c/(2 − c), with c a minimax polynomial in r².
  const double t = r * r;
  const double c = r - t * (kP1 + t * (kP2 + t * (kP3 + t * (kP4 + t * kP5))));
  const double y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);

  // Scale by 2^k: exact (it only moves the exponent), or rounded once when subnormal.
  return times_power_of_two(y, static_cast<int>(k));
}

}  // namespace headgrader

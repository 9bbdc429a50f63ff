// The engine's own exp: within 1 ulp of the C library's over the softmax's whole range.
#include "portable_exp.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "headgrader/strings.h"

namespace headgrader {
namespace {

TEST(PortableExp, AgreesWithTheCLibraryWithinOneUlp) {
  SplitMix64 rng(3);
  for (int n = 0; n < 200000; ++n) {
    const double x = -745.0 + 1454.0 * static_cast<double>(rng.next() >> 11) * 0x1p-53;
    const double want = std::exp(x), got = portable_exp(x);
    EXPECT_LE(std::fabs(got - want), std::fabs(std::nextafter(want, INFINITY) - want))
        << "x = " << x;
  }
}

TEST(PortableExp, RoundingIsNearbyintOverTheReducedRange) {
  for (int n = -1100; n <= 1100; ++n) {  // the ties, which go to the even neighbour
    const double tie = n + 0.5;
    EXPECT_EQ(round_to_nearest_even(tie), std::nearbyint(tie)) << tie;
    EXPECT_EQ(round_to_nearest_even(std::nextafter(tie, 0.0)),
              std::nearbyint(std::nextafter(tie, 0.0)));
  }
  SplitMix64 rng(5);
  for (int n = 0; n < 100000; ++n) {
    const double v = -1100.0 + 2200.0 * static_cast<double>(rng.next() >> 11) * 0x1p-53;
    EXPECT_EQ(round_to_nearest_even(v), std::nearbyint(v)) << v;
  }
}

TEST(PortableExp, ScalingIsLdexpBitForBitSubnormalsIncluded) {
  // exp's reduced value lies in [1/√2, √2]; every k from overflow down past the subnormals.
  SplitMix64 rng(6);
  std::vector<double> ys = {1.0, std::sqrt(0.5), std::sqrt(2.0), std::nextafter(1.0, 0.0),
                            std::nextafter(1.0, 2.0)};
  for (int n = 0; n < 40; ++n)
    ys.push_back(0.7 + 0.72 * static_cast<double>(rng.next() >> 11) * 0x1p-53);
  for (const double y : ys) {
    for (int k = -1130; k <= 1030; ++k) {
      const double want = std::ldexp(y, k), got = times_power_of_two(y, k);
      EXPECT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(want))
          << "y = " << y << ", k = " << k;
    }
  }
}

TEST(PortableExp, ExactAtZeroAndClampsOutsideTheRange) {
  EXPECT_EQ(portable_exp(0.0), 1.0);
  EXPECT_EQ(portable_exp(-1000.0), 0.0);
  EXPECT_EQ(portable_exp(-INFINITY), 0.0);
  EXPECT_TRUE(std::isinf(portable_exp(1000.0)));
}

}  // namespace
}  // namespace headgrader

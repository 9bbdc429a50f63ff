// The engine's own exp: within 1 ulp of the C library's over the softmax's whole range.
#include "../grader/portable_exp.h"

#include <gtest/gtest.h>

#include <cmath>

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

TEST(PortableExp, ExactAtZeroAndClampsOutsideTheRange) {
  EXPECT_EQ(portable_exp(0.0), 1.0);
  EXPECT_EQ(portable_exp(-1000.0), 0.0);
  EXPECT_EQ(portable_exp(-INFINITY), 0.0);
  EXPECT_TRUE(std::isinf(portable_exp(1000.0)));
}

}  // namespace
}  // namespace headgrader

// exp(x) computed the same way on every machine. The C library's exp may pick an FMA
// variant at run time (glibc on x86-64 does), and results can then differ in the last bit
// between machines; the grade must not. This is fdlibm's algorithm (error < 1 ulp) in plain
// double arithmetic; CMake compiles the engine with -ffp-contract=off so no FMA is fused in.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace headgrader {

// std::nearbyint(v) in the default rounding mode (to nearest, ties to even), for |v| ≤ 2⁵¹:
// adding 1.5·2⁵² leaves no fraction bits, so the addition itself rounds. Inline arithmetic
// instead of a library call, which costs more than the rest of portable_exp.
inline double round_to_nearest_even(double v) {
  constexpr double kShift = 0x1.8p52;
  return (v + kShift) - kShift;
}

// std::ldexp(y, k), bit for bit: when 2^k is a normal double, y · 2^k is one IEEE
// multiplication, rounded once exactly as ldexp rounds a subnormal result; otherwise ldexp.
inline double times_power_of_two(double y, int k) {
  if (k < -1022 || k > 1023) return std::ldexp(y, k);
  return y * std::bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52);
}

// For x ≤ 0 (the softmax only needs that range after subtracting the row maximum), and in
// fact for any finite x; underflows to exactly 0 below about −745.
double portable_exp(double x);

}  // namespace headgrader

// exp(x) computed the same way on every machine. The C library's exp may pick an FMA
// variant at run time (glibc on x86-64 does), and results can then differ in the last bit
// between machines; the grade must not. This is fdlibm's algorithm (error < 1 ulp) in plain
// double arithmetic; CMake compiles the engine with -ffp-contract=off so no FMA is fused in.
#pragma once

namespace headgrader {

// For x ≤ 0 (the softmax only needs that range after subtracting the row maximum), and in
// fact for any finite x; underflows to exactly 0 below about −745.
double portable_exp(double x);

}  // namespace headgrader

// Which positions a compiled `expected` program reads (Expected::window and
// Expected::fixed_positions, expected.h), found by running it once over abstract values: a
// number known when the program is compiled (the same operations on the same numbers as a
// run), the position plus a whole number, or anything else. Only `at`'s position argument
// needs them; every other value may be "anything".
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "expected_program.h"
#include "headgrader/limits.h"

namespace headgrader::expected_program {
namespace {

// Whole numbers up to 2⁴⁰ add and subtract exactly, so pos + x folded here is the number the
// program computes at every position, in any order of the additions.
constexpr double kLargestExactOffset = 0x1p40;

struct Abstract {
  enum Kind { kAnything, kConstant, kPosPlus } kind = kAnything;
  double x = 0;  // the constant, or the offset from pos
  bool operator==(const Abstract&) const = default;
};

bool whole(double x) { return std::fabs(x) <= kLargestExactOffset && x == std::floor(x); }

Abstract constant(double x) { return {Abstract::kConstant, x}; }
Abstract pos_plus(double x) { return whole(x) ? Abstract{Abstract::kPosPlus, x} : Abstract{}; }

}  // namespace

ProgramReads reads_of(const Expected::Program& p) {
  std::vector<Abstract> slot(p.slot_count);
  ProgramReads reads;
  const auto both = [&](const Instruction& in, auto op) {
    const Abstract a = slot[in.a], b = slot[in.b];
    slot[in.dst] = a.kind == Abstract::kConstant && b.kind == Abstract::kConstant
                       ? constant(op(a.x, b.x))
                       : Abstract{};
  };
  for (const Instruction& in : p.code) {
    Abstract& r = slot[in.dst];
    switch (in.op) {
      case Op::kConst:
        r = constant(in.value);
        break;
      case Op::kPos:
        r = pos_plus(0);
        break;
      case Op::kIs:
        reads.last = true;
        r = {};
        break;
      case Op::kAny:
      case Op::kAll:
      case Op::kCount:
      case Op::kMean:
        reads.counts = true;
        r = {};
        break;
      case Op::kAt: {
        const Abstract k = slot[in.a];
        // Mirrors evaluate's test: a k that is not a whole number in 1 … i reads no token.
        if (k.kind == Abstract::kConstant) {
          if (k.x >= 1 && k.x <= static_cast<double>(limits::kMaxStringLength) && whole(k.x)) {
            reads.fixed.push_back(static_cast<int>(k.x));
          }
        } else if (k.kind == Abstract::kPosPlus) {
          if (k.x <= 0) reads.back.push_back(static_cast<int>(-k.x));
        } else {
          reads.other = true;  // a position that is neither
        }
        r = {};
        break;
      }
      case Op::kNeg:
        r = slot[in.a].kind == Abstract::kConstant ? constant(-slot[in.a].x) : Abstract{};
        break;
      case Op::kAdd: {
        const Abstract a = slot[in.a], b = slot[in.b];
        if (a.kind == Abstract::kPosPlus && b.kind == Abstract::kConstant) {
          r = pos_plus(a.x + b.x);
        } else if (a.kind == Abstract::kConstant && b.kind == Abstract::kPosPlus) {
          r = pos_plus(a.x + b.x);
        } else {
          both(in, [](double x, double y) { return x + y; });
        }
        break;
      }
      case Op::kSub: {
        const Abstract a = slot[in.a], b = slot[in.b];
        if (a.kind == Abstract::kPosPlus && b.kind == Abstract::kConstant) {
          r = pos_plus(a.x - b.x);
        } else {
          both(in, [](double x, double y) { return x - y; });
        }
        break;
      }
      case Op::kMul:
        both(in, [](double x, double y) { return x * y; });
        break;
      case Op::kDiv:  // by a constant 0 it faults everywhere: its value is then "anything"
        if (slot[in.b].kind == Abstract::kConstant && slot[in.b].x == 0) {
          r = {};
        } else {
          both(in, [](double x, double y) { return x / y; });
        }
        break;
      case Op::kNot:
        r = slot[in.a].kind == Abstract::kConstant ? constant(slot[in.a].x == 0 ? 1.0 : 0.0)
                                                   : Abstract{};
        break;
      case Op::kLess:
        both(in, [](double x, double y) -> double { return x < y; });
        break;
      case Op::kLessEq:
        both(in, [](double x, double y) -> double { return x <= y; });
        break;
      case Op::kGreater:
        both(in, [](double x, double y) -> double { return x > y; });
        break;
      case Op::kGreaterEq:
        both(in, [](double x, double y) -> double { return x >= y; });
        break;
      case Op::kEqual:
        both(in, [](double x, double y) -> double { return x == y; });
        break;
      case Op::kNotEqual:
        both(in, [](double x, double y) -> double { return x != y; });
        break;
      case Op::kAnd:
        both(in, [](double x, double y) -> double { return x != 0 && y != 0; });
        break;
      case Op::kOr:
        both(in, [](double x, double y) -> double { return x != 0 || y != 0; });
        break;
      case Op::kSelect: {
        // As evaluate: the result overwrites the condition and the first branch, copied
        // forward from the branch taken (or, unknown which, the same value in both or none).
        const Abstract condition = slot[in.dst];
        for (std::uint32_t k = 0; k < in.arg; ++k) {
          const Abstract a = slot[in.a + k], b = slot[in.b + k];
          if (condition.kind == Abstract::kConstant) {
            slot[in.dst + k] = condition.x != 0 ? a : b;
          } else {
            slot[in.dst + k] = a == b ? a : Abstract{};
          }
        }
        break;
      }
    }
  }
  for (auto* positions : {&reads.fixed, &reads.back}) {
    std::sort(positions->begin(), positions->end());
    positions->erase(std::unique(positions->begin(), positions->end()), positions->end());
  }
  return reads;
}

std::optional<ExpectedWindow> window_of(const Expected::Program& p) {
  ProgramReads reads = reads_of(p);
  if (reads.counts || reads.other) return std::nullopt;
  if (reads.last && (reads.back.empty() || reads.back.front() != 0)) {
    reads.back.insert(reads.back.begin(), 0);
  }
  return ExpectedWindow{std::move(reads.fixed), std::move(reads.back)};
}

}  // namespace headgrader::expected_program

// The compiled form of an `expected` expression (expected.h): a flat program over a value
// array, written by the compiler (expected_parser.cc) and run by Expected::evaluate
// (expected.cc). Every value has a static length, so each instruction reads and writes fixed
// slots; running it needs no stack pointer, no allocation and no recursion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "headgrader/expected.h"
#include "headgrader/limits.h"

namespace headgrader {
namespace expected_program {

// Leaves (kConst … kAt; kAt also reads slot a), one operand (kNeg, kNot), two operands, and
// kSelect: condition in slot dst, branches of length arg at a and b, result written at dst.
enum class Op : std::uint8_t {
  kConst,
  kPos,
  kIs,
  kAny,
  kAll,
  kCount,
  kMean,
  kAt,
  kNeg,
  kNot,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kLess,
  kLessEq,
  kGreater,
  kGreaterEq,
  kEqual,
  kNotEqual,
  kAnd,
  kOr,
  kSelect
};

struct Instruction {
  Op op;
  std::uint32_t dst = 0;  // slot written
  std::uint32_t a = 0;    // slots read
  std::uint32_t b = 0;
  std::uint32_t arg = 0;  // class index (kIs … kAt), branch length (kSelect), column (kDiv)
  double value = 0;       // kConst
};

// Each value on the evaluation stack comes from an atom of at least one character, so the
// slots in use never exceed the source length.
constexpr std::size_t kMaxSlots = limits::kMaxExpectedLength;

}  // namespace expected_program

struct Expected::Program {
  std::vector<expected_program::Instruction> code;
  std::size_t output_size = 0;
  std::size_t slot_count = 0;  // ≤ expected_program::kMaxSlots
  std::vector<int> named_classes;
  std::size_t alphabet_size = 0;
  std::vector<unsigned char> membership;  // [class * alphabet_size + token]
  std::optional<ExpectedWindow> window;   // Expected::window(), set when the program is made
  // Output j is slot output_order[j] (Expected::with_outputs); empty: output j is slot j.
  std::vector<std::uint32_t> output_order;
};

namespace expected_program {
// What a program reads of a prefix (grader/expected_window.cc): the positions `at` reads as
// constants (fixed) and as pos minus a constant (back), whether `is` reads the last token,
// whether anything reads a class count, and whether some `at` reads any other position.
struct ProgramReads {
  std::vector<int> fixed, back;  // ascending, each once
  bool last = false, counts = false, other = false;
};
ProgramReads reads_of(const Expected::Program& program);
// Expected::window() of a program: its reads when they are only positions, `is` as back 0.
std::optional<ExpectedWindow> window_of(const Expected::Program& program);
}  // namespace expected_program

}  // namespace headgrader

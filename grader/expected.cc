// The `expected` language's evaluator: the loop that runs a compiled program
// (expected_program.h) over one prefix. The compiler is in expected_parser.cc.
#include "headgrader/expected.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>

#include "expected_program.h"

namespace headgrader {

using expected_program::Instruction;
using expected_program::Op;

void count_classes(const ClassTable& table, std::span<const int> tokens, std::span<int> counts) {
  for (std::size_t c = 0; c < table.names.size() && c < counts.size(); ++c) {
    const std::vector<bool>& members = table.members[c];
    counts[c] = static_cast<int>(std::count_if(tokens.begin(), tokens.end(), [&](int t) {
      return t >= 0 && static_cast<std::size_t>(t) < members.size() && members[t];
    }));
  }
}

Expected::Expected(std::unique_ptr<Program> program) : program_(std::move(program)) {
  program_->window = expected_program::window_of(*program_);
}
Expected::Expected(Expected&&) noexcept = default;
Expected& Expected::operator=(Expected&&) noexcept = default;
Expected::~Expected() = default;

std::size_t Expected::output_size() const { return program_->output_size; }
const std::vector<int>& Expected::named_classes() const { return program_->named_classes; }
const std::optional<ExpectedWindow>& Expected::window() const { return program_->window; }
bool Expected::reads_positions() const {
  return std::any_of(program_->code.begin(), program_->code.end(),
                     [](const Instruction& i) { return i.op == Op::kAt; });
}

std::optional<std::vector<int>> Expected::fixed_positions() const {
  // The program run once over "constant or not": a slot is constant when only constants and
  // arithmetic on constants wrote it, and then holds the value a run would give it (the same
  // operations on the same numbers).
  struct Value {
    bool constant = false;
    double x = 0;
  };
  std::vector<Value> slot(program_->slot_count);
  std::vector<int> positions;
  const auto both = [&](const Instruction& in, auto op) {
    const Value a = slot[in.a], b = slot[in.b];
    slot[in.dst] = a.constant && b.constant ? Value{true, op(a.x, b.x)} : Value{};
  };
  for (const Instruction& in : program_->code) {
    switch (in.op) {
      case Op::kConst:
        slot[in.dst] = {true, in.value};
        break;
      case Op::kPos:
      case Op::kIs:
      case Op::kAny:
      case Op::kAll:
      case Op::kCount:
      case Op::kMean:
        slot[in.dst] = {};
        break;
      case Op::kAt: {
        const Value k = slot[in.a];
        if (!k.constant) return std::nullopt;
        // Mirrors evaluate's test: a k that is not a whole number ≥ 1 reads no token.
        if (k.x >= 1 && k.x <= static_cast<double>(limits::kMaxStringLength) &&
            k.x == std::floor(k.x)) {
          positions.push_back(static_cast<int>(k.x));
        }
        slot[in.dst] = {};
        break;
      }
      case Op::kNeg:
        slot[in.dst] = slot[in.a].constant ? Value{true, -slot[in.a].x} : Value{};
        break;
      case Op::kNot:
        slot[in.dst] = slot[in.a].constant ? Value{true, slot[in.a].x == 0 ? 1.0 : 0.0} : Value{};
        break;
      case Op::kAdd:
        both(in, [](double a, double b) { return a + b; });
        break;
      case Op::kSub:
        both(in, [](double a, double b) { return a - b; });
        break;
      case Op::kMul:
        both(in, [](double a, double b) { return a * b; });
        break;
      case Op::kDiv:  // by a constant 0 it faults at every position: not a constant then
        if (slot[in.b].constant && slot[in.b].x == 0) {
          slot[in.dst] = {};
        } else {
          both(in, [](double a, double b) { return a / b; });
        }
        break;
      case Op::kLess:
        both(in, [](double a, double b) -> double { return a < b; });
        break;
      case Op::kLessEq:
        both(in, [](double a, double b) -> double { return a <= b; });
        break;
      case Op::kGreater:
        both(in, [](double a, double b) -> double { return a > b; });
        break;
      case Op::kGreaterEq:
        both(in, [](double a, double b) -> double { return a >= b; });
        break;
      case Op::kEqual:
        both(in, [](double a, double b) -> double { return a == b; });
        break;
      case Op::kNotEqual:
        both(in, [](double a, double b) -> double { return a != b; });
        break;
      case Op::kAnd:
        both(in, [](double a, double b) -> double { return a != 0 && b != 0; });
        break;
      case Op::kOr:
        both(in, [](double a, double b) -> double { return a != 0 || b != 0; });
        break;
      case Op::kSelect: {
        const Value condition = slot[in.dst];
        for (std::uint32_t k = 0; k < in.arg; ++k) {
          const Value a = slot[in.a + k], b = slot[in.b + k];
          if (condition.constant) {
            slot[in.dst + k] = condition.x != 0 ? a : b;
          } else {
            slot[in.dst + k] = a.constant && b.constant && a.x == b.x ? a : Value{};
          }
        }
        break;
      }
    }
  }
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  return positions;
}

namespace {

// Runs the program with `slot` as its value array (at least p.slot_count long).
std::optional<EvaluationFault> run(const Expected::Program& p, const PrefixFacts& facts,
                                   double* slot, std::span<double> out) {
  const std::size_t i = facts.tokens.size();
  const auto last = static_cast<std::size_t>(facts.tokens.back());
  const auto member = [&](std::uint32_t c, std::size_t token) -> double {
    return token < p.alphabet_size && p.membership[c * p.alphabet_size + token];
  };
  // at(k, C): the comparisons are false for NaN and exclude ±inf before the cast.
  const auto at = [&](std::uint32_t c, double k) -> double {
    if (!(k >= 1 && k <= static_cast<double>(i)) || k != std::floor(k)) return 0;
    return member(c, static_cast<std::size_t>(facts.tokens[static_cast<std::size_t>(k) - 1]));
  };
  for (const Instruction& in : p.code) {
    double& r = slot[in.dst];
    switch (in.op) {
      case Op::kConst:
        r = in.value;
        break;
      case Op::kPos:
        r = static_cast<double>(i);
        break;
      case Op::kIs:
        r = member(in.arg, last);
        break;
      case Op::kAny:
        r = facts.class_counts[in.arg] > 0;
        break;
      case Op::kAll:
        r = static_cast<std::size_t>(facts.class_counts[in.arg]) == i;
        break;
      case Op::kCount:
        r = facts.class_counts[in.arg];
        break;
      case Op::kMean:
        r = facts.class_counts[in.arg] / static_cast<double>(i);
        break;
      case Op::kAt:
        r = at(in.arg, slot[in.a]);
        break;
      case Op::kNeg:
        r = -slot[in.a];
        break;
      case Op::kNot:
        r = slot[in.a] == 0;
        break;
      case Op::kAdd:
        r = slot[in.a] + slot[in.b];
        break;
      case Op::kSub:
        r = slot[in.a] - slot[in.b];
        break;
      case Op::kMul:
        r = slot[in.a] * slot[in.b];
        break;
      case Op::kDiv:
        if (slot[in.b] == 0) return EvaluationFault{in.arg};
        r = slot[in.a] / slot[in.b];
        break;
      case Op::kLess:
        r = slot[in.a] < slot[in.b];
        break;
      case Op::kLessEq:
        r = slot[in.a] <= slot[in.b];
        break;
      case Op::kGreater:
        r = slot[in.a] > slot[in.b];
        break;
      case Op::kGreaterEq:
        r = slot[in.a] >= slot[in.b];
        break;
      case Op::kEqual:
        r = slot[in.a] == slot[in.b];
        break;
      case Op::kNotEqual:
        r = slot[in.a] != slot[in.b];
        break;
      case Op::kAnd:
        r = slot[in.a] != 0 && slot[in.b] != 0;
        break;
      case Op::kOr:
        r = slot[in.a] != 0 || slot[in.b] != 0;
        break;
      case Op::kSelect: {
        // The result overwrites the condition and the first branch; copying forward is safe
        // because every source slot lies at or after the slot it is copied to.
        const std::uint32_t from = r != 0 ? in.a : in.b;
        for (std::uint32_t k = 0; k < in.arg; ++k) slot[in.dst + k] = slot[from + k];
        break;
      }
    }
  }
  std::copy_n(slot, p.output_size, out.begin());
  return std::nullopt;
}

[[gnu::noinline]] std::optional<EvaluationFault> run_large(const Expected::Program& p,
                                                           const PrefixFacts& facts,
                                                           std::span<double> out) {
  std::array<double, expected_program::kMaxSlots> slot;  // only the slots written are read
  return run(p, facts, slot.data(), out);
}

}  // namespace

std::optional<EvaluationFault> Expected::evaluate(const PrefixFacts& facts,
                                                  std::span<double> out) const {
  const Program& p = *program_;
  assert(out.size() >= p.output_size && !facts.tokens.empty());
  // Most expressions need a few slots. A small array keeps the common call cheap: the
  // large one is a 32 KiB frame, which costs a stack probe per page on every call.
  constexpr std::size_t kSmallSlots = 64;
  if (p.slot_count > kSmallSlots) return run_large(p, facts, out);
  std::array<double, kSmallSlots> slot;  // only the slots written are read
  return run(p, facts, slot.data(), out);
}

}  // namespace headgrader

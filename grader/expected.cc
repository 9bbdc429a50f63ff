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
  const expected_program::ProgramReads reads = expected_program::reads_of(*program_);
  if (reads.other || !reads.back.empty()) return std::nullopt;  // a position that varies
  return reads.fixed;
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
  if (p.output_order.empty()) {
    std::copy_n(slot, p.output_size, out.begin());
  } else {
    for (std::size_t j = 0; j < p.output_size; ++j) out[j] = slot[p.output_order[j]];
  }
  return std::nullopt;
}

[[gnu::noinline]] std::optional<EvaluationFault> run_large(const Expected::Program& p,
                                                           const PrefixFacts& facts,
                                                           std::span<double> out) {
  std::array<double, expected_program::kMaxSlots> slot;  // only the slots written are read
  return run(p, facts, slot.data(), out);
}

}  // namespace

Expected Expected::with_outputs(std::span<const std::size_t> order) const {
  assert(order.size() == program_->output_size);
  auto program = std::make_unique<Program>(*program_);
  program->output_order.resize(order.size());
  for (std::size_t j = 0; j < order.size(); ++j) {
    // Composed with this one's own order, so that a reordered expression reorders again.
    program->output_order[j] = program_->output_order.empty() ? static_cast<std::uint32_t>(order[j])
                                                              : program_->output_order[order[j]];
  }
  return Expected(std::move(program));
}

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

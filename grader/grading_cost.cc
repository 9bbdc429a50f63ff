#include "headgrader/grading_cost.h"

#include <algorithm>
#include <limits>

#include "headgrader/limits.h"

namespace headgrader {
namespace {

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

std::uint64_t add(std::uint64_t a, std::uint64_t b) {
  return a > kSaturated - b ? kSaturated : a + b;
}

std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > kSaturated / b ? kSaturated : a * b;
}

}  // namespace

std::uint64_t grading_cost(const Problem& problem) {
  if (problem.count_states() != nullptr) return 0;
  const bool causal = problem.head.causal;
  // A new row at length L costs L scores and values; without the mask every row of the
  // string is new.
  const auto string_cost = [&](std::uint64_t length, bool shares_prefix) {
    const std::uint64_t row = length;
    return shares_prefix ? row : mul(row, length);
  };
  std::uint64_t rows = 0;
  std::uint64_t strings_of_length = 1;
  const std::uint64_t groups = problem.representatives().size();
  for (int length = 1; length <= problem.strings.exhaustive_length; ++length) {
    strings_of_length = mul(strings_of_length, groups);
    rows =
        add(rows, mul(strings_of_length, string_cost(static_cast<std::uint64_t>(length), causal)));
  }
  for (const TokenString& s : problem.extra_strings()) {
    rows = add(rows, string_cost(s.size(), /*shares_prefix=*/false));
  }
  return mul(rows, limits::kMaxMatrixRows + problem.n_v);
}

std::uint64_t answer_cost(const Problem& problem, const Submission& submission) {
  std::uint64_t longest = static_cast<std::uint64_t>(problem.strings.max_length);
  std::uint64_t examples = 0;
  for (const TokenString& example : problem.examples) {
    longest = std::max<std::uint64_t>(longest, example.size());
    examples = add(examples, mul(example.size(), 2 * problem.n_v));
  }
  const std::uint64_t n_q = static_cast<std::uint64_t>(submission.weights.W_q.rows());
  const std::uint64_t rows = add(add(problem.n_e, mul(2, n_q)), add(mul(4, problem.n_v), 1));
  // ... and the failure's max_error.
  const std::uint64_t per_failure = add(add(mul(longest, rows), mul(3, mul(longest, longest))), 1);
  const std::uint64_t failures = std::min<std::uint64_t>(
      static_cast<std::uint64_t>(std::max(submission.max_failures, 0)), problem.tested_total());
  return add(mul(failures, per_failure), examples);
}

}  // namespace headgrader

#include "prefix_expected.h"

#include <algorithm>

#include "headgrader/limits.h"

namespace headgrader {

PrefixExpected::PrefixExpected(const Problem& problem, int max_depth)
    : problem_(problem),
      n_v_(problem.n_v),
      group_of_(problem.group_of()),
      classes_(problem.classes.names.size()),
      member_(problem.alphabet_chars.size() * classes_),
      counts_((static_cast<std::size_t>(max_depth) + 1) * classes_, 0) {
  for (std::size_t t = 0; t < problem.alphabet_chars.size(); ++t) {
    for (std::size_t c = 0; c < classes_; ++c)
      member_[t * classes_ + c] = problem.classes.members[c][t];
  }
  const std::optional<ExpectedWindow>& window = problem.expected->window();
  if (!window || max_depth <= 0) return;
  // Rows: each length times each group at each position read, if they are few enough.
  groups_ = problem.representatives().size();
  std::size_t rows = static_cast<std::size_t>(max_depth);
  for (std::size_t k = 0; k < window->fixed.size() + window->back.size(); ++k) {
    if (groups_ != 0 && rows > limits::kMaxExpectedWindowRows / groups_) return;
    rows *= groups_;
  }
  if (rows > limits::kMaxExpectedWindowRows) return;
  window_ = &*window;
  kept_.assign(rows, Kept::kNot);
  values_.resize(rows * problem.n_v);
  faults_.resize(rows);
}

std::optional<EvaluationFault> PrefixExpected::run(std::span<const int> prefix, double* out) {
  ++programs_run_;
  const int* here = counts_.data() + prefix.size() * classes_;
  return problem_.expected->evaluate(PrefixFacts{prefix, std::span<const int>(here, classes_)},
                                     std::span<double>(out, problem_.n_v));
}

std::optional<EvaluationFault> PrefixExpected::evaluate_slowly(std::span<const int> prefix,
                                                               double* out) {
  if (window_ == nullptr) return run(prefix, out);
  // The same key, the same inputs to every instruction: the same numbers, or the same fault.
  const std::size_t row = window_key(prefix);
  double* kept = &values_[row * problem_.n_v];
  switch (kept_[row]) {
    case Kept::kValue:
      std::copy_n(kept, problem_.n_v, out);
      return std::nullopt;
    case Kept::kFault:
      return faults_[row];
    case Kept::kNot:
      break;
  }
  const auto fault = run(prefix, kept);
  if (fault) {
    kept_[row] = Kept::kFault;
    faults_[row] = *fault;
    return fault;
  }
  kept_[row] = Kept::kValue;
  std::copy_n(kept, problem_.n_v, out);
  return std::nullopt;
}

}  // namespace headgrader

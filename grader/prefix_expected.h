// `expected` (API.md §3) along the current prefix of a walk (prefix_walk.h): the class
// counts of each depth are the parent's plus the new token, so each prefix costs O(classes).
// When the value reads only a window of positions (Expected::window: `is`, at(k, C),
// at(pos - c, C), no class counts), it is a function of the prefix's length and the groups
// of the tokens it reads, and is kept per such key: the previous-letter problem's 2 097 150
// prefixes at length 20 are 80 keys. Either way the numbers (and any fault) are those of
// Expected::evaluate on the prefix, bit for bit.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "headgrader/problem.h"

namespace headgrader {

// `expected` along the current prefix, class counts carried from the parent.
class PrefixExpected {
 public:
  PrefixExpected(const Problem& problem, int max_depth);

  // Counts the prefix's last token (the parent's counts must be current). A window reads no
  // count, so with its table there is nothing to carry.
  void advance(std::span<const int> prefix) {
    if (window_ != nullptr) return;
    const std::size_t d = prefix.size();
    int* here = counts_.data() + d * classes_;
    const int* parent = here - classes_;
    // Through data(): with no classes the vector is empty, and indexing it is undefined.
    const unsigned char* member =
        member_.data() + static_cast<std::size_t>(prefix.back()) * classes_;
    for (std::size_t c = 0; c < classes_; ++c) here[c] = parent[c] + member[c];
  }
  // `expected` at the prefix's last position (after advance(prefix)). The window's kept
  // rows are read here, inline: that is most prefixes of a walk, and a call returning the
  // optional cost a store-forwarding stall per prefix (perf: a sixth of a previous-letter
  // grade), which the caller that ignores the fault no longer pays.
  std::optional<EvaluationFault> evaluate(std::span<const int> prefix, double* out) {
    if (window_ != nullptr) {
      const std::size_t row = window_key(prefix);
      if (kept_[row] == Kept::kValue) {
        const double* kept = &values_[row * n_v_];
        for (std::size_t c = 0; c < n_v_; ++c) out[c] = kept[c];  // a few: no memmove
        return std::nullopt;
      }
    }
    return evaluate_slowly(prefix, out);
  }
  std::optional<EvaluationFault> extend(std::span<const int> prefix, double* out) {
    advance(prefix);
    return evaluate(prefix, out);
  }
  // How many times the program itself ran (the rest came from the window's table): for the
  // tests that show the table is used.
  std::size_t programs_run() const { return programs_run_; }

 private:
  std::optional<EvaluationFault> run(std::span<const int> prefix, double* out);
  // evaluate() without a kept value: the program, or the window's kept fault.
  std::optional<EvaluationFault> evaluate_slowly(std::span<const int> prefix, double* out);
  // The window table's row of the prefix: its length, then the group at each position read
  // (0 where there is no token).
  std::size_t window_key(std::span<const int> prefix) const {
    const std::size_t i = prefix.size();
    const auto group = [&](std::size_t position) {  // 1-based
      return position >= 1 && position <= i
                 ? static_cast<std::size_t>(
                       group_of_[static_cast<std::size_t>(prefix[position - 1])])
                 : 0;
    };
    std::size_t row = i - 1;
    for (const int k : window_->fixed) row = row * groups_ + group(static_cast<std::size_t>(k));
    for (const int c : window_->back) {
      row = row * groups_ +
            (static_cast<std::size_t>(c) < i ? group(i - static_cast<std::size_t>(c)) : 0);
    }
    return row;
  }

  const Problem& problem_;
  std::size_t n_v_;
  std::span<const int> group_of_;  // the problem's token → group
  std::size_t classes_;
  std::vector<unsigned char> member_;  // member_[token * classes + c]
  std::vector<int> counts_;            // counts_[d * classes + c]: class c among s_1 … s_d
  std::size_t programs_run_ = 0;

  // The window's table (empty without one, or beyond limits::kMaxExpectedWindowRows).
  const ExpectedWindow* window_ = nullptr;
  std::size_t groups_ = 0;
  enum class Kept : unsigned char { kNot, kValue, kFault };
  std::vector<Kept> kept_;               // per row
  std::vector<double> values_;           // [row * n_v + c]
  std::vector<EvaluationFault> faults_;  // per row, when kFault
};

}  // namespace headgrader

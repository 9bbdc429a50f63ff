// The exhaustive set as a tree of prefixes (API.md §4): every string of length
// 1..max_depth over the representatives, visited depth-first in alphabet order. A causal
// head's output at position i depends only on s_1 … s_i, so each prefix is computed once,
// and when a prefix fails every string below it fails too: the visitor says whether to
// descend.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "headgrader/problem.h"
#include "headgrader/strings.h"

namespace headgrader {

// visit(std::span<const int> prefix) -> bool descend. The prefix's last token is the new one;
// everything before it was visited just before (so per-depth state can be kept in arrays).
template <typename Visit>
void walk_prefixes(const std::vector<int>& symbols, int max_depth, Visit&& visit) {
  if (max_depth <= 0 || symbols.empty()) return;
  const auto g = symbols.size();
  std::vector<std::size_t> choice(static_cast<std::size_t>(max_depth) + 1, 0);
  std::vector<int> prefix(static_cast<std::size_t>(max_depth));
  int depth = 1;
  while (depth >= 1) {
    auto& here = choice[static_cast<std::size_t>(depth)];
    if (here == g) {  // every child of the parent done: back up
      if (--depth >= 1) ++choice[static_cast<std::size_t>(depth)];
      continue;
    }
    prefix[static_cast<std::size_t>(depth - 1)] = symbols[here];
    const bool descend =
        visit(std::span<const int>(prefix.data(), static_cast<std::size_t>(depth)));
    if (descend && depth < max_depth) {
      choice[static_cast<std::size_t>(++depth)] = 0;
    } else {
      ++here;
    }
  }
}

// Keeps the first `capacity` failing strings in report order (shorter first, then alphabet
// order), whatever order they are found in.
class FailureCollector {
 public:
  explicit FailureCollector(std::size_t capacity) : capacity_(capacity) {}

  // Could a string of this length still make the list?
  bool accepts(std::size_t length) const {
    return kept_.size() < capacity_ || (capacity_ > 0 && kept_.back().size() >= length);
  }
  // Whether `s` is now in the list.
  bool add(const TokenString& s);
  // Adds the strings of the subtree under `prefix` (prefix included) down to max_depth, as
  // many as could make the list: at each depth only the first `capacity` in alphabet order.
  void add_subtree(std::span<const int> prefix, const std::vector<int>& symbols, int max_depth);

  const std::vector<TokenString>& kept() const { return kept_; }

 private:
  std::size_t capacity_;
  std::vector<TokenString> kept_;  // sorted, at most capacity_
};

// `expected` along the current prefix, class counts carried from the parent.
class PrefixExpected {
 public:
  PrefixExpected(const Problem& problem, int max_depth)
      : problem_(problem), classes_(problem.classes.names.size()),
        member_(problem.alphabet_chars.size() * classes_),
        counts_((static_cast<std::size_t>(max_depth) + 1) * classes_, 0) {
    for (std::size_t t = 0; t < problem.alphabet_chars.size(); ++t) {
      for (std::size_t c = 0; c < classes_; ++c) member_[t * classes_ + c] = problem.classes.members[c][t];
    }
  }

  // Counts the prefix's last token (the parent's counts must be current).
  void advance(std::span<const int> prefix) {
    const std::size_t d = prefix.size();
    int* here = counts_.data() + d * classes_;
    const int* parent = here - classes_;
    // Through data(): with no classes the vector is empty, and indexing it is undefined.
    const unsigned char* member =
        member_.data() + static_cast<std::size_t>(prefix.back()) * classes_;
    for (std::size_t c = 0; c < classes_; ++c) here[c] = parent[c] + member[c];
  }
  // `expected` at the prefix's last position (after advance(prefix)).
  std::optional<EvaluationFault> evaluate(std::span<const int> prefix, double* out) const {
    const int* here = counts_.data() + prefix.size() * classes_;
    return problem_.expected->evaluate(PrefixFacts{prefix, std::span<const int>(here, classes_)},
                                       std::span<double>(out, problem_.n_v));
  }
  std::optional<EvaluationFault> extend(std::span<const int> prefix, double* out) {
    advance(prefix);
    return evaluate(prefix, out);
  }

 private:
  const Problem& problem_;
  std::size_t classes_;
  std::vector<unsigned char> member_;  // member_[token * classes + c]
  std::vector<int> counts_;            // counts_[d * classes + c]: class c among s_1 … s_d
};

}  // namespace headgrader

// `expected` (API.md §3) along the current prefix of a walk (prefix_walk.h): the class
// counts of each depth are the parent's plus the new token, so each prefix costs O(classes).
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
  PrefixExpected(const Problem& problem, int max_depth)
      : problem_(problem),
        classes_(problem.classes.names.size()),
        member_(problem.alphabet_chars.size() * classes_),
        counts_((static_cast<std::size_t>(max_depth) + 1) * classes_, 0) {
    for (std::size_t t = 0; t < problem.alphabet_chars.size(); ++t) {
      for (std::size_t c = 0; c < classes_; ++c)
        member_[t * classes_ + c] = problem.classes.members[c][t];
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

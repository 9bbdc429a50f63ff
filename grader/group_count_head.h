// The head's new row at a prefix from the prefix's kind counts alone (token_kinds.h: a kind
// is a group, or with W_P a group at a class of positions). A token's q, k and v depend only
// on its kind, so with a the new token's kind, n_b the prefix's count of kind b and m the
// largest S[a][b] among the kinds present:
//   out = Σ_b n_b · e^{S[a][b] − m} · v_b  /  Σ_b n_b · e^{S[a][b] − m}
// an online softmax whose state is the counts. The scores and exponentials are the same bits
// as run_head's; only the order of the sums differs, so a row within margin() of the
// tolerance is computed again exactly by the caller (row_verdict.h).
#pragma once

#include <cstddef>
#include <vector>

#include "headgrader/attention.h"
#include "headgrader/problem.h"
#include "token_kinds.h"

namespace headgrader {

class GroupCountHead {
 public:
  // Steps 1–3 of the handout once per kind: each kind's embedding, q, k and v, and the score
  // S[a][b] = scale · q_a · k_b of every pair of kinds.
  GroupCountHead(const Problem& problem, const HeadWeights& weights, const TokenKinds& kinds);
  GroupCountHead(const GroupCountHead&) = delete;  // its pointers point into numbers_
  GroupCountHead& operator=(const GroupCountHead&) = delete;

  // How far a row may be from run_head's: reordered sums of at most 64 terms err by under
  // 64·2⁻⁵³ relative to their magnitude.
  double margin() const { return margin_; }

  // Steps 5–6 (the mask is the prefix itself): the row for a prefix whose kinds are
  // counted in `n` and whose last token is of kind a, into `out` (n_v numbers).
  void row(const int* n, std::size_t a, double* out) { (this->*row_)(n, a, out); }

 private:
  using RowFunction = void (GroupCountHead::*)(const int*, std::size_t, double*);

  template <std::size_t G, std::size_t NV>
  void row_of(const int* n, std::size_t a, double* out);
  template <std::size_t G>
  static RowFunction row_for_components(std::size_t n_v);
  static RowFunction row_for(std::size_t groups, std::size_t n_v);
  template <std::size_t G>
  const double* exponentials(const int* n, std::size_t a);

  static constexpr std::size_t kCachedGroups = 4;

  std::size_t g_, n_v_;
  RowFunction row_ = row_for(g_, n_v_);
  std::vector<double> numbers_;  // the four arrays below, one after the other
  double* scores_ = nullptr;     // scores_[a * g + b] = scale · q_a · k_b
  double* v_ = nullptr;          // v_[b * n_v + c]
  double* scratch_ = nullptr;    // exponentials when there are too many kinds to cache
  double* cache_ = nullptr;      // [(a << g | present) * g + b]
  double margin_ = 0;
  std::vector<unsigned char> cached_;  // per (a, present)
};

}  // namespace headgrader

#include "group_count_head.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "head_math.h"
#include "portable_exp.h"

namespace headgrader {

GroupCountHead::GroupCountHead(const Problem& p, const HeadWeights& w, const TokenKinds& kinds)
    : g_(kinds.size()), n_v_(p.n_v) {
  // All its numbers in one allocation, and one more for the work space of this
  // constructor: a grade builds one of these for every submission.
  const std::size_t cache_sets = g_ <= kCachedGroups ? g_ << g_ : 0;
  numbers_.resize(g_ * g_ + g_ * n_v_ + g_ + cache_sets * g_);
  scores_ = numbers_.data();
  v_ = scores_ + g_ * g_;
  scratch_ = v_ + g_ * n_v_;
  cache_ = scratch_ + g_;
  cached_.assign(cache_sets, 0);
  const auto n_q = static_cast<std::size_t>(w.W_q.rows());
  std::vector<double> work(p.n_e + 2 * g_ * n_q);
  double* const r = work.data();
  double* const q = r + p.n_e;
  double* const k = q + g_ * n_q;
  // Steps 1–2: each kind's embedding (its group's representative at the first position of
  // its class), query, key and value.
  for (std::size_t a = 0; a < g_; ++a) {
    head_math::embed(p.head, kinds.token(a), kinds.position(a) - 1, r);
    head_math::project(w.W_q, r, &q[a * n_q]);
    head_math::project(w.W_k, r, &k[a * n_q]);
    head_math::project(w.W_V, r, &v_[a * n_v_]);
  }
  double largest_v = 0;
  for (std::size_t i = 0; i < g_ * n_v_; ++i) largest_v = std::max(largest_v, std::fabs(v_[i]));
  margin_ = 1e-12 * (1 + largest_v);
  // Step 3: the scores of every pair of groups.
  for (std::size_t a = 0; a < g_; ++a) {
    for (std::size_t b = 0; b < g_; ++b) {
      scores_[a * g_ + b] =
          head_math::score(&q[a * n_q], &k[b * n_q], static_cast<Eigen::Index>(n_q), p.head.scale);
    }
  }
}

// row() with G groups and NV components of v known when compiled (0: read from g_, n_v_).
// A grade computes about a hundred rows, mostly of 2 groups and 2 components: with the
// loops unrolled, grade() of the handout solution went from 2.85 to 2.08 µs
// (BM_GradeRequestPart/1).
template <std::size_t G, std::size_t NV>
void GroupCountHead::row_of(const int* n, std::size_t a, double* out) {
  const std::size_t groups = G != 0 ? G : g_, n_v = NV != 0 ? NV : n_v_;
  // Step 5, the softmax: each group's weight n_b · e^{S[a][b] − m} and their sum z.
  // Step 6: the values weighted by them, over z.
  const double* e = exponentials<G>(n, a);
  // Summed in a local array when its size is known: `out` may alias v_ as far as the
  // compiler knows, which would store and reload each sum.
  std::array<double, NV != 0 ? NV : 1> local{};
  double* const sum = NV != 0 ? local.data() : out;
  for (std::size_t c = 0; c < n_v; ++c) sum[c] = 0;
  double z = 0;
  for (std::size_t b = 0; b < groups; ++b) {
    const double weight = n[b] * e[b];  // 0 for an absent group: e[b] is 0, not skipped,
    z += weight;                        // so the unrolled loop has no branch
    for (std::size_t c = 0; c < n_v; ++c) sum[c] += weight * v_[b * n_v + c];
  }
  for (std::size_t c = 0; c < n_v; ++c) out[c] = sum[c] / z;
}

template <std::size_t G>
GroupCountHead::RowFunction GroupCountHead::row_for_components(std::size_t n_v) {
  switch (n_v) {
    case 1:
      return &GroupCountHead::row_of<G, 1>;
    case 2:
      return &GroupCountHead::row_of<G, 2>;
    case 3:
      return &GroupCountHead::row_of<G, 3>;
    case 4:
      return &GroupCountHead::row_of<G, 4>;
    default:
      return &GroupCountHead::row_of<G, 0>;
  }
}

GroupCountHead::RowFunction GroupCountHead::row_for(std::size_t groups, std::size_t n_v) {
  switch (groups) {
    case 1:
      return row_for_components<1>(n_v);
    case 2:
      return row_for_components<2>(n_v);
    case 3:
      return row_for_components<3>(n_v);
    case 4:
      return row_for_components<4>(n_v);
    default:
      return &GroupCountHead::row_of<0, 0>;
  }
}

// e^{S[a][b] − m} for each group b present in `n` (m: the largest such S[a][b]), 0 for
// the others. They depend only on a and on which groups are present, so with few groups
// each set is computed once per grade: 2 groups need 6 sets where a grade meets ~100 rows.
template <std::size_t G>
const double* GroupCountHead::exponentials(const int* n, std::size_t a) {
  const std::size_t groups = G != 0 ? G : g_;
  double* e = scratch_;
  if (groups <= kCachedGroups) {
    std::size_t present = 0;
    for (std::size_t b = 0; b < groups; ++b) present |= std::size_t{n[b] > 0} << b;
    const std::size_t set = (a << groups) | present;
    e = &cache_[set * groups];
    if (cached_[set]) return e;
    cached_[set] = 1;
  }
  const double* s = &scores_[a * groups];
  double m = -INFINITY;
  for (std::size_t b = 0; b < groups; ++b) {
    if (n[b] > 0) m = std::max(m, s[b]);
  }
  for (std::size_t b = 0; b < groups; ++b) e[b] = n[b] > 0 ? portable_exp(s[b] - m) : 0.0;
  return e;
}

}  // namespace headgrader

#include "score_gap.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "head_math.h"
#include "headgrader/limits.h"

namespace headgrader {
namespace {

struct Gaps {
  bool checked = false;  // the tokens were few enough to look at
  std::optional<double> smallest;
};

// Scores closer than this (relative to the largest) are the same score: the rounding of
// q · k, not a preference.
bool same_score(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::max(std::fabs(a), std::fabs(b)));
}

Gaps score_gaps(const Problem& p, const HeadWeights& w) {
  const std::size_t groups = p.representatives().size();
  // Positions matter only with W_P; without it one position stands for all.
  const int positions = p.head.W_P ? p.strings.max_length : 1;
  const std::size_t tokens = groups * static_cast<std::size_t>(positions);
  Gaps gaps;
  if (tokens > limits::kMaxScoreGapTokens || groups == 0) return gaps;
  gaps.checked = true;
  const auto n_q = static_cast<std::size_t>(w.W_q.rows());
  std::vector<double> r(p.n_e), q(tokens * n_q), k(tokens * n_q);
  for (int i = 0; i < positions; ++i) {
    for (std::size_t a = 0; a < groups; ++a) {
      const std::size_t t = static_cast<std::size_t>(i) * groups + a;
      head_math::embed(p.head, p.representatives()[a], i, r.data());
      head_math::project(w.W_q, r.data(), &q[t * n_q]);
      head_math::project(w.W_k, r.data(), &k[t * n_q]);
    }
  }
  // Without W_P any two groups can share a string once strings are 2 long; with it, a query
  // at position i sees every token before i and itself (or every position, not causal).
  const bool others_visible = p.strings.max_length >= 2;
  std::vector<double> seen;
  for (int i = 0; i < positions; ++i) {
    for (std::size_t a = 0; a < groups; ++a) {
      const std::size_t query = static_cast<std::size_t>(i) * groups + a;
      seen.clear();
      for (int j = 0; j < positions; ++j) {
        if (p.head.W_P && p.head.causal && j > i) break;
        for (std::size_t b = 0; b < groups; ++b) {
          const std::size_t key = static_cast<std::size_t>(j) * groups + b;
          const bool itself = key == query;
          if (!itself && !others_visible) continue;
          if (p.head.W_P && j == i && !itself) continue;  // one token a position
          seen.push_back(head_math::score(&q[query * n_q], &k[key * n_q],
                                          static_cast<Eigen::Index>(n_q), p.head.scale));
        }
      }
      const double top = *std::max_element(seen.begin(), seen.end());
      std::optional<double> next;
      for (const double s : seen) {
        if (!same_score(s, top) && (!next || s > *next)) next = s;
      }
      if (next && (!gaps.smallest || top - *next < *gaps.smallest)) gaps.smallest = top - *next;
    }
  }
  return gaps;
}

}  // namespace

std::optional<double> smallest_score_gap(const Problem& problem, const HeadWeights& weights) {
  return score_gaps(problem, weights).smallest;
}

bool attention_is_uniform(const Problem& problem, const HeadWeights& weights) {
  const Gaps gaps = score_gaps(problem, weights);
  return gaps.checked && !gaps.smallest;
}

}  // namespace headgrader

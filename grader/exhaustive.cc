#include "exhaustive.h"

#include <cmath>
#include <vector>

#include "head_math.h"
#include "headgrader/grade.h"
#include "portable_exp.h"

namespace headgrader {
namespace {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

enum class Verdict { kPass, kFail, kTooClose };

// |out − expected| against the tolerance, with a margin for rounding: a fast row within
// `margin` of the tolerance is recomputed exactly before it is judged.
Verdict judge(const double* out, const double* expected, std::size_t n_v, double tolerance,
              double margin) {
  Verdict verdict = Verdict::kPass;
  for (std::size_t c = 0; c < n_v; ++c) {
    const double error = std::fabs(out[c] - expected[c]);
    if (!(error <= tolerance + margin)) return Verdict::kFail;  // NaN fails too
    if (error > tolerance - margin) verdict = Verdict::kTooClose;
  }
  return verdict;
}

// The head along the current prefix of a depth-first walk: row d-1 of each matrix belongs to
// position d, and extending to depth d computes only that row — the same bits as row d-1 of
// run_head(prefix). O(length) per prefix; used when W_P makes rows depend on position.
class PrefixHead {
 public:
  PrefixHead(const HeadSpec& spec, const HeadWeights& w, int max_depth)
      : spec_(spec), w_(w), R_(max_depth, spec.W_E.rows()), Q_(max_depth, w.W_q.rows()),
        K_(max_depth, w.W_k.rows()), V_(max_depth, w.W_V.rows()), scores_(max_depth),
        attention_(max_depth) {}

  void extend(std::span<const int> prefix, double* out) {
    const int i = static_cast<int>(prefix.size()) - 1;
    head_math::embed(spec_, prefix.back(), i, R_.row(i).data());
    head_math::project(w_.W_q, R_.row(i).data(), Q_.row(i).data());
    head_math::project(w_.W_k, R_.row(i).data(), K_.row(i).data());
    head_math::project(w_.W_V, R_.row(i).data(), V_.row(i).data());
    for (int j = 0; j <= i; ++j) {
      scores_[j] = head_math::score(Q_.row(i).data(), K_.row(j).data(), Q_.cols(), spec_.scale);
    }
    masked_softmax_row(scores_.data(), i + 1, i, attention_.data());
    head_math::attend(attention_.data(), i, V_.cols(), [&](int j) { return V_.row(j).data(); },
                      out);
  }

  // The last row of run_head(prefix), computed from scratch (for the rare close calls).
  void exact(std::span<const int> prefix, double* out) {
    for (std::size_t d = 1; d <= prefix.size(); ++d) extend(prefix.first(d), out);
  }

 private:
  const HeadSpec& spec_;
  const HeadWeights& w_;
  RowMajor R_, Q_, K_, V_;
  std::vector<double> scores_, attention_;
};

// Without W_P a token's q, k and v depend only on its group, so the new row at a prefix is
//   out = Σ_b n_b · e^{S[a][b] − m} · v_b  /  Σ_b n_b · e^{S[a][b] − m}
// with a the new token's group, n_b the prefix's count of group b and m the largest S[a][b]
// among groups present: an online softmax whose state is the counts. The scores and
// exponentials are the same bits as run_head's; only the order of the sums differs, so a
// row within `margin()` of the tolerance is recomputed exactly by the caller.
class GroupCountHead {
 public:
  GroupCountHead(const Problem& p, const HeadWeights& w, int max_depth)
      : g_(p.representatives.size()), n_v_(p.n_v), group_of_(p.alphabet_chars.size(), 0),
        scores_(g_ * g_), v_(g_ * n_v_), counts_((static_cast<std::size_t>(max_depth) + 1) * g_, 0) {
    std::vector<double> r(p.n_e), q(g_ * w.W_q.rows()), k(g_ * w.W_k.rows());
    const auto n_q = w.W_q.rows();
    for (std::size_t a = 0; a < g_; ++a) {
      group_of_[p.representatives[a]] = a;
      head_math::embed(p.head, p.representatives[a], 0, r.data());
      head_math::project(w.W_q, r.data(), &q[a * n_q]);
      head_math::project(w.W_k, r.data(), &k[a * n_q]);
      head_math::project(w.W_V, r.data(), &v_[a * n_v_]);
    }
    double largest_v = 0;
    for (double x : v_) largest_v = std::max(largest_v, std::fabs(x));
    // Reordered sums of at most 64 terms err by under 64·2⁻⁵³ relative to their magnitude.
    margin_ = 1e-12 * (1 + largest_v);
    for (std::size_t a = 0; a < g_; ++a) {
      for (std::size_t b = 0; b < g_; ++b) {
        scores_[a * g_ + b] = head_math::score(&q[a * n_q], &k[b * n_q], n_q, p.head.scale);
      }
    }
  }

  double margin() const { return margin_; }

  void extend(std::span<const int> prefix, double* out) {
    const std::size_t d = prefix.size();
    const std::size_t a = group_of_[prefix.back()];
    int* n = &counts_[d * g_];
    const int* parent = n - g_;
    for (std::size_t b = 0; b < g_; ++b) n[b] = parent[b];
    ++n[a];

    const double* s = &scores_[a * g_];
    double m = -INFINITY;
    for (std::size_t b = 0; b < g_; ++b) {
      if (n[b] > 0) m = std::max(m, s[b]);
    }
    double z = 0;
    for (std::size_t c = 0; c < n_v_; ++c) out[c] = 0;
    for (std::size_t b = 0; b < g_; ++b) {
      if (n[b] == 0) continue;
      const double weight = n[b] * portable_exp(s[b] - m);
      z += weight;
      for (std::size_t c = 0; c < n_v_; ++c) out[c] += weight * v_[b * n_v_ + c];
    }
    for (std::size_t c = 0; c < n_v_; ++c) out[c] /= z;
  }

 private:
  std::size_t g_, n_v_;
  std::vector<std::size_t> group_of_;  // token -> index of its representative
  std::vector<double> scores_;         // scores_[a * g + b] = scale · q_a · k_b
  std::vector<double> v_;              // v_[b * n_v + c]
  std::vector<int> counts_;            // counts_[d * g + b]: group b among s_1 … s_d
  double margin_ = 0;
};

// Walks the tree with `fast` giving each new row; close calls go to the exact PrefixHead.
template <typename FastHead>
std::uint64_t walk(const Problem& p, const HeadWeights& w, FastHead& fast, double margin,
                   FailureCollector& failures) {
  const auto& reps = p.representatives;
  const int E = p.strings.exhaustive_length;
  PrefixExpected expected(p, E);
  PrefixHead exact(p.head, w, E);
  std::vector<double> out(p.n_v), want(p.n_v);
  std::uint64_t failed = 0;
  walk_prefixes(reps, E, [&](std::span<const int> prefix) {
    fast.extend(prefix, out.data());
    (void)expected.extend(prefix, want.data());  // cannot fault: checked at load
    auto verdict = judge(out.data(), want.data(), p.n_v, p.tolerance, margin);
    if (verdict == Verdict::kTooClose) {
      exact.exact(prefix, out.data());
      verdict = judge(out.data(), want.data(), p.n_v, p.tolerance, 0);
    }
    if (verdict == Verdict::kPass) return true;
    failed += 1 + exhaustive_count(reps.size(), E - static_cast<int>(prefix.size()));
    failures.add_subtree(prefix, reps, E);
    return false;
  });
  return failed;
}

}  // namespace

std::uint64_t grade_exhaustive(const Problem& p, const HeadWeights& w,
                               FailureCollector& failures) {
  const int E = p.strings.exhaustive_length;
  if (p.head.causal && !p.head.W_P) {
    GroupCountHead fast(p, w, E);
    return walk(p, w, fast, fast.margin(), failures);
  }
  if (p.head.causal) {
    PrefixHead rows(p.head, w, E);  // exact already: no margin needed
    return walk(p, w, rows, 0.0, failures);
  }
  // Without the mask a position sees the whole string: no prefix can be shared.
  std::uint64_t failed = 0;
  walk_prefixes(p.representatives, E, [&](std::span<const int> prefix) {
    const TokenString s(prefix.begin(), prefix.end());
    if (!string_passes(p, w, s)) {
      ++failed;
      failures.add(s);
    }
    return true;
  });
  return failed;
}

}  // namespace headgrader

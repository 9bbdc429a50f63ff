#include "exhaustive.h"

#include <cmath>
#include <map>
#include <optional>
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
  GroupCountHead(const Problem& p, const HeadWeights& w)
      : g_(p.representatives.size()), n_v_(p.n_v), scores_(g_ * g_), v_(g_ * n_v_) {
    const auto n_q = static_cast<std::size_t>(w.W_q.rows());
    std::vector<double> r(p.n_e), q(g_ * n_q), k(g_ * n_q);
    for (std::size_t a = 0; a < g_; ++a) {
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
        scores_[a * g_ + b] = head_math::score(&q[a * n_q], &k[b * n_q],
                                               static_cast<Eigen::Index>(n_q), p.head.scale);
      }
    }
  }

  double margin() const { return margin_; }

  // The row for a prefix whose groups are counted in `n` and whose last token is in group a.
  void row(const int* n, std::size_t a, double* out) const {
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
  std::vector<double> scores_;  // scores_[a * g + b] = scale · q_a · k_b
  std::vector<double> v_;       // v_[b * n_v + c]
  double margin_ = 0;
};

// Prefixes with the same group counts (a "state") give the same fast row; when `expected`
// does not read positions they also give the same expected row, so a clear verdict found
// once holds for every prefix in that state with that last group. States are numbered as
// they are met; next_[state * g + group] is the state one token later.
class StateTable {
 public:
  explicit StateTable(std::size_t groups) : g_(groups) { id_of(std::vector<int>(g_, 0)); }

  int next(int state, std::size_t group) {
    const std::size_t slot = static_cast<std::size_t>(state) * g_ + group;
    if (next_[slot] < 0) {
      std::vector<int> grown(counts(state), counts(state) + g_);
      ++grown[group];
      const int id = id_of(grown);  // may grow next_: index it again afterwards
      next_[slot] = id;
    }
    return next_[slot];
  }
  const int* counts(int state) const { return &counts_[static_cast<std::size_t>(state) * g_]; }
  // -1 unknown, 0 pass, 1 fail, 2 too close to call from the state (judge each prefix).
  signed char& verdict(int state, std::size_t group) {
    return verdicts_[static_cast<std::size_t>(state) * g_ + group];
  }

 private:
  int id_of(const std::vector<int>& counts) {
    const auto [at, fresh] = ids_.emplace(counts, static_cast<int>(ids_.size()));
    if (fresh) {
      counts_.insert(counts_.end(), counts.begin(), counts.end());
      next_.resize(next_.size() + g_, -1);
      verdicts_.resize(verdicts_.size() + g_, -1);
    }
    return at->second;
  }

  std::size_t g_;
  std::map<std::vector<int>, int> ids_;
  std::vector<int> counts_, next_;
  std::vector<signed char> verdicts_;
};

}  // namespace

// Judges one prefix after another, each the parent's extension by one token.
class PrefixJudge::Impl {
 public:
  Impl(const Problem& p, const HeadWeights& w, int max_depth)
      : p_(p), w_(w), by_counts_(!p.head.W_P), memo_(by_counts_ && !p.expected->reads_positions()),
        rows_(p.head, w, max_depth), expected_(p, max_depth), states_(p.representatives.size()),
        state_at_(static_cast<std::size_t>(max_depth) + 1, 0), out_(p.n_v), want_(p.n_v) {
    if (by_counts_) fast_.emplace(p, w);
  }

  bool passes(std::span<const int> prefix) {
    const std::size_t d = prefix.size();
    if (!by_counts_) {  // W_P: rows depend on position; extend the exact rows
      rows_.extend(prefix, out_.data());
      (void)expected_.extend(prefix, want_.data());  // cannot fault: checked at load
      return judge(0.0) == Verdict::kPass;
    }
    expected_.advance(prefix);
    const auto group = static_cast<std::size_t>(p_.group_of[prefix.back()]);
    const int state = states_.next(state_at_[d - 1], group);
    state_at_[d] = state;
    signed char& known = states_.verdict(state, group);
    if (memo_ && (known == 0 || known == 1)) return known == 0;

    fast_->row(states_.counts(state), group, out_.data());
    expected_.evaluate(prefix, want_.data());
    Verdict verdict = judge(fast_->margin());
    if (memo_) known = verdict == Verdict::kPass ? 0 : verdict == Verdict::kFail ? 1 : 2;
    if (verdict == Verdict::kTooClose) {
      rows_.exact(prefix, out_.data());
      verdict = judge(0.0);
    }
    return verdict == Verdict::kPass;
  }

 private:
  Verdict judge(double margin) const {
    return headgrader::judge(out_.data(), want_.data(), p_.n_v, p_.tolerance, margin);
  }

  const Problem& p_;
  const HeadWeights& w_;
  const bool by_counts_, memo_;
  std::optional<GroupCountHead> fast_;
  PrefixHead rows_;
  PrefixExpected expected_;
  StateTable states_;
  std::vector<int> state_at_;  // state of the prefix of each length on the current path
  std::vector<double> out_, want_;
};

PrefixJudge::PrefixJudge(const Problem& p, const HeadWeights& w, int max_depth)
    : impl_(std::make_unique<Impl>(p, w, max_depth)) {}
PrefixJudge::~PrefixJudge() = default;
bool PrefixJudge::passes(std::span<const int> prefix) { return impl_->passes(prefix); }

std::uint64_t grade_exhaustive(const Problem& p, const HeadWeights& w, PrefixJudge* judge,
                               FailureCollector& failures) {
  const auto& reps = p.representatives;
  const int E = p.strings.exhaustive_length;
  std::uint64_t failed = 0;
  if (judge) {
    walk_prefixes(reps, E, [&](std::span<const int> prefix) {
      if (judge->passes(prefix)) return true;
      failed += 1 + exhaustive_count(reps.size(), E - static_cast<int>(prefix.size()));
      failures.add_subtree(prefix, reps, E);
      return false;  // every string below fails too
    });
    return failed;
  }
  // Without the mask a position sees the whole string: no prefix can be shared.
  walk_prefixes(reps, E, [&](std::span<const int> prefix) {
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

#include "exhaustive.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "count_states.h"
#include "head_math.h"
#include "headgrader/grade.h"
#include "headgrader/grade_cancel.h"
#include "headgrader/strings.h"
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

// max |out − expected| over the row's components (NaN when one is NaN): what a margin reports.
double row_error(const double* out, const double* expected, std::size_t n_v) {
  double worst = 0;
  for (std::size_t c = 0; c < n_v; ++c) {
    const double error = std::fabs(out[c] - expected[c]);
    worst = std::isnan(error) || std::isnan(worst) ? NAN : std::max(worst, error);
  }
  return worst;
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
      : g_(p.representatives.size()), n_v_(p.n_v) {
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
    for (std::size_t a = 0; a < g_; ++a) {
      head_math::embed(p.head, p.representatives[a], 0, r);
      head_math::project(w.W_q, r, &q[a * n_q]);
      head_math::project(w.W_k, r, &k[a * n_q]);
      head_math::project(w.W_V, r, &v_[a * n_v_]);
    }
    double largest_v = 0;
    for (std::size_t i = 0; i < g_ * n_v_; ++i) largest_v = std::max(largest_v, std::fabs(v_[i]));
    // Reordered sums of at most 64 terms err by under 64·2⁻⁵³ relative to their magnitude.
    margin_ = 1e-12 * (1 + largest_v);
    for (std::size_t a = 0; a < g_; ++a) {
      for (std::size_t b = 0; b < g_; ++b) {
        scores_[a * g_ + b] = head_math::score(&q[a * n_q], &k[b * n_q],
                                               static_cast<Eigen::Index>(n_q), p.head.scale);
      }
    }
  }
  GroupCountHead(const GroupCountHead&) = delete;  // its pointers point into numbers_
  GroupCountHead& operator=(const GroupCountHead&) = delete;

  double margin() const { return margin_; }

  // The row for a prefix whose groups are counted in `n` and whose last token is in group a.
  void row(const int* n, std::size_t a, double* out) { (this->*row_)(n, a, out); }

 private:
  using RowFunction = void (GroupCountHead::*)(const int*, std::size_t, double*);

  // row() with G groups and NV components of v known when compiled (0: read from g_, n_v_).
  // A grade computes about a hundred rows, mostly of 2 groups and 2 components: with the
  // loops unrolled, grade() of the handout solution went from 2.85 to 2.08 µs
  // (BM_GradeRequestPart/1).
  template <std::size_t G, std::size_t NV>
  void row_of(const int* n, std::size_t a, double* out) {
    const std::size_t groups = G != 0 ? G : g_, n_v = NV != 0 ? NV : n_v_;
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
  static RowFunction row_for_components(std::size_t n_v) {
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
  static RowFunction row_for(std::size_t groups, std::size_t n_v) {
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
  const double* exponentials(const int* n, std::size_t a) {
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

  static constexpr std::size_t kCachedGroups = 4;

  std::size_t g_, n_v_;
  RowFunction row_ = row_for(g_, n_v_);
  std::vector<double> numbers_;  // the four arrays below, one after the other
  double* scores_ = nullptr;     // scores_[a * g + b] = scale · q_a · k_b
  double* v_ = nullptr;          // v_[b * n_v + c]
  double* scratch_ = nullptr;    // exponentials when there are too many groups to cache
  double* cache_ = nullptr;      // [(a << g | present) * g + b]
  double margin_ = 0;
  std::vector<unsigned char> cached_;  // per (a, present)
};

// Prefixes with the same group counts (a "state") give the same fast row; when `expected`
// does not read positions they also give the same expected row, so a clear verdict found
// once holds for every prefix in that state with that last group. States are numbered as
// they are met; next_[state * g + group] is the state one token later. Each new state is
// found by one lookup in an open-addressing table keyed by a hash that adds a random
// weight per token (so a child's hash is its parent's plus one term): no allocation per
// state, which matters when a grade meets a few dozen states in a few microseconds.
class StateTable {
 public:
  explicit StateTable(std::size_t groups) : g_(groups), weight_(groups), slots_(64, -1) {
    SplitMix64 rng(0x5eed);
    for (auto& w : weight_) w = rng.next();
    counts_.assign(g_, 0);  // state 0: the empty prefix
    hash_.push_back(0);
    next_.assign(g_, -1);
    verdicts_.assign(g_, -1);
    slots_[slot_of(0)] = 0;
  }

  int next(int state, std::size_t group) {
    const std::size_t at = static_cast<std::size_t>(state) * g_ + group;
    if (next_[at] < 0) {
      const int id = find_or_add(state, group);  // grows next_: index it again afterwards
      next_[at] = id;
    }
    return next_[at];
  }
  const int* counts(int state) const { return &counts_[static_cast<std::size_t>(state) * g_]; }
  // -1 unknown, 0 pass, 1 fail, 2 too close to call from the state (judge each prefix).
  signed char& verdict(int state, std::size_t group) {
    return verdicts_[static_cast<std::size_t>(state) * g_ + group];
  }
  std::size_t size() const { return hash_.size(); }

 private:
  std::size_t slot_of(std::uint64_t hash) const {
    return static_cast<std::size_t>((hash * 0x9E3779B97F4A7C15ULL) >> 32) & (slots_.size() - 1);
  }

  // The state of `parent`'s counts with one more of `group`.
  int find_or_add(int parent, std::size_t group) {
    const std::uint64_t hash = hash_[static_cast<std::size_t>(parent)] + weight_[group];
    const int* base = counts(parent);
    const auto is_child = [&](int id) {
      const int* n = counts(id);
      for (std::size_t b = 0; b < g_; ++b) {
        if (n[b] != base[b] + (b == group)) return false;
      }
      return true;
    };
    std::size_t slot = slot_of(hash);
    for (; slots_[slot] >= 0; slot = (slot + 1) & (slots_.size() - 1)) {
      const int id = slots_[slot];
      if (hash_[static_cast<std::size_t>(id)] == hash && is_child(id)) return id;
    }
    const int id = static_cast<int>(size());
    const std::size_t from = static_cast<std::size_t>(parent) * g_, to = counts_.size();
    counts_.resize(to + g_);  // may move counts_: `base` is stale from here
    std::copy_n(counts_.begin() + static_cast<std::ptrdiff_t>(from), g_,
                counts_.begin() + static_cast<std::ptrdiff_t>(to));
    ++counts_[to + group];
    hash_.push_back(hash);
    next_.resize(next_.size() + g_, -1);
    verdicts_.resize(verdicts_.size() + g_, -1);
    slots_[slot] = id;
    if (2 * size() > slots_.size()) rehash();
    return id;
  }

  void rehash() {
    slots_.assign(2 * slots_.size(), -1);
    for (std::size_t id = 0; id < size(); ++id) {
      std::size_t slot = slot_of(hash_[id]);
      while (slots_[slot] >= 0) slot = (slot + 1) & (slots_.size() - 1);
      slots_[slot] = static_cast<int>(id);
    }
  }

  std::size_t g_;
  std::vector<std::uint64_t> weight_;  // per group: a state's hash is Σ counts · weights
  std::vector<int> slots_;             // open addressing: state ids, -1 empty; power of 2
  std::vector<std::uint64_t> hash_;    // per state
  std::vector<int> counts_, next_;
  std::vector<signed char> verdicts_;
};

}  // namespace

// Judges one prefix after another, each the parent's extension by one token.
class PrefixJudge::Impl {
 public:
  Impl(const Problem& p, const HeadWeights& w, int max_depth)
      : p_(p),
        w_(w),
        by_counts_(!p.head.W_P),
        memo_(by_counts_ && !p.expected->reads_positions()),
        max_depth_(max_depth),
        row_(2 * p.n_v) {
    if (by_counts_) fast_.emplace(p, w);
    // The problem's own states when they reach deep enough (a test may lengthen a copy's
    // strings); otherwise found as they are met.
    const CountStateGraph* graph = p.count_states.get();
    if (memo_ && graph && graph->depth >= max_depth && graph->groups == p.representatives.size() &&
        graph->n_v == p.n_v) {
      graph_ = graph;
      graph_verdicts_.assign(graph->size() * graph->groups, -1);
      has_paths_ = graph->extra_path.size() == p.extra_strings.size();
    } else {
      states_.emplace(p.representatives.size());
    }
  }

  // The exhaustive set's failures counted over count states instead of prefixes (see
  // count_exhaustive_failures in exhaustive.h); nullopt, with nothing added, when it cannot be.
  std::optional<std::uint64_t> count_failures(int E, FailureCollector& failures);

  // Every position of s, from the verdicts already known for its states while they last.
  bool string_passes(std::span<const int> s) {
    if (memo_) {
      int state = 0;
      std::size_t d = 0;
      for (; d < s.size(); ++d) {
        const auto group = static_cast<std::size_t>(p_.group_of[s[d]]);
        state = next_state(state, group);
        const signed char known = verdict_of(state, group);
        if (known == 1) return false;
        if (known != 0) break;  // not judged yet, or too close to call from the state
      }
      if (d == s.size()) return true;
    }
    for (std::size_t i = 1; i <= s.size(); ++i) {
      if (!passes(s.first(i))) return false;
    }
    return true;
  }

  // Whether every (state, last group) slot that a tested prefix is in passes clearly: then
  // every tested string passes, with nothing to count or walk (the common case of a correct
  // submission). Found once, on first use: about as many rows as counting would judge.
  // False without the problem's graph, or as soon as one slot fails or is too close to call.
  bool every_tested_slot_passes();
  // After every_tested_slot_passes() was false: whether it stopped at a slot that clearly
  // fails (then some tested string fails), not at one too close to call.
  bool tested_slot_fails() const { return tested_slot_fails_; }

  // extra_strings[i]: from the verdict of its path when the graph has the paths.
  bool extra_string_passes(std::size_t i) {
    if (every_tested_slot_passes()) return true;
    if (has_paths_) {
      if (path_verdicts_.empty()) path_verdicts_.assign(graph_->path_begin.size() - 1, -1);
      const auto path = static_cast<std::size_t>(graph_->extra_path[i]);
      signed char& known = path_verdicts_[path];
      if (known < 0) known = path_verdict(path);
      if (known != 2) return known == 0;
    }
    return string_passes(p_.extra_strings[i]);
  }

  bool passes(std::span<const int> prefix) {
    const std::size_t d = prefix.size();
    if (!by_counts_) {  // W_P: rows depend on position; extend the exact rows
      exact_rows().extend(prefix, out_);
      (void)expected().extend(prefix, want_);  // cannot fault: checked at load
      return judge(0.0) == Verdict::kPass;
    }
    expected().advance(prefix);
    if (state_at_.empty()) state_at_.assign(static_cast<std::size_t>(max_depth_) + 1, 0);
    const auto group = static_cast<std::size_t>(p_.group_of[prefix.back()]);
    const int state = next_state(state_at_[d - 1], group);
    state_at_[d] = state;
    signed char& known = verdict_of(state, group);
    if (memo_ && (known == 0 || known == 1)) return known == 0;

    fast_->row(counts_of(state), group, out_);
    expected().evaluate(prefix, want_);
    Verdict verdict = judge(fast_->margin());
    if (memo_) known = verdict == Verdict::kPass ? 0 : verdict == Verdict::kFail ? 1 : 2;
    if (verdict == Verdict::kTooClose) {
      exact_rows().exact(prefix, out_);
      verdict = judge(0.0);
    }
    return verdict == Verdict::kPass;
  }

 private:
  // Every row judged is judged here (or in every_tested_slot_passes), so worst_ ends as the
  // largest error of a passing head over every tested position.
  Verdict judge(double margin) {
    note_error(want_);
    return headgrader::judge(out_, want_, p_.n_v, p_.tolerance, margin);
  }
  void note_error(const double* expected) {
    const double error = row_error(out_, expected, p_.n_v);
    worst_ = std::isnan(error) || std::isnan(worst_) ? NAN : std::max(worst_, error);
  }

 public:
  double worst_error() const { return worst_; }

 private:
  double worst_ = 0;

  const Problem& p_;
  const HeadWeights& w_;
  const bool by_counts_, memo_;
  std::optional<GroupCountHead> fast_;
  // The exact rows, built on first use: a head without W_P needs them only for close calls.
  PrefixHead& exact_rows() {
    if (!rows_) rows_.emplace(p_.head, w_, max_depth_);
    return *rows_;
  }

  // `expected` along the prefixes shown to passes(), built on first use: grading over the
  // problem's count states reads the expected rows from the graph instead.
  PrefixExpected& expected() {
    if (!expected_) expected_.emplace(p_, max_depth_);
    return *expected_;
  }

  // The count states: the problem's (graph_, with verdicts of this head beside) or this
  // judge's own (states_).
  int next_state(int state, std::size_t group) {
    return graph_ ? graph_->next[static_cast<std::size_t>(state) * graph_->groups + group]
                  : states_->next(state, group);
  }
  const int* counts_of(int state) const {
    return graph_ ? graph_->counts_of(state) : states_->counts(state);
  }
  signed char& verdict_of(int state, std::size_t group) {
    return graph_ ? graph_verdicts_[static_cast<std::size_t>(state) * graph_->groups + group]
                  : states_->verdict(state, group);
  }
  std::size_t state_count() const { return graph_ ? graph_->size() : states_->size(); }

  Verdict state_verdict(int state, std::size_t group);
  // As StateTable::verdict: 0 every slot of the path passes, 1 one fails, 2 none fails but
  // one is too close to call from its state (the string is then judged prefix by prefix).
  signed char path_verdict(std::size_t path);

  int max_depth_;
  std::optional<PrefixHead> rows_;
  std::optional<PrefixExpected> expected_;
  signed char every_tested_slot_passes_ = -1;  // -1 not known yet, else 0 or 1
  bool tested_slot_fails_ = false;  // every_tested_slot_passes stopped at a clear failure
  const CountStateGraph* graph_ = nullptr;
  std::vector<signed char> graph_verdicts_;  // as StateTable::verdict, per graph_ state
  bool has_paths_ = false;                   // graph_ has the extra strings' paths
  std::vector<signed char> path_verdicts_;   // per graph_ path, made on first use
  std::optional<StateTable> states_;

  // The state of the prefix of each length on the current path (made on first use).
  std::vector<int> state_at_;
  std::vector<double> row_;  // out_ then want_: the head's row and `expected`'s, n_v each
  double* const out_ = row_.data();
  double* const want_ = out_ + p_.n_v;
  TokenString canonical_;          // scratch for expected_at_state
  std::vector<int> class_counts_;  // scratch for expected_at_state
};

// The verdict of any prefix in `state` whose last token is in `group`, found once: without
// W_P and positions in `expected`, every such prefix has the same fast row and expected row
// (the problem's, or evaluated on one such prefix).
Verdict PrefixJudge::Impl::state_verdict(int state, std::size_t group) {
  signed char& known = verdict_of(state, group);
  if (known < 0) {
    const int* n = counts_of(state);
    fast_->row(n, group, out_);
    if (graph_) {
      std::copy_n(graph_->expected_row(state, group), p_.n_v, want_);
    } else {
      // Cannot fault: `expected` was checked on the tested set at load.
      (void)expected_at_state(p_, n, group, canonical_, class_counts_, want_);
    }
    const Verdict verdict = judge(fast_->margin());
    known = verdict == Verdict::kPass ? 0 : verdict == Verdict::kFail ? 1 : 2;
  }
  return known == 0 ? Verdict::kPass : known == 1 ? Verdict::kFail : Verdict::kTooClose;
}

bool PrefixJudge::Impl::every_tested_slot_passes() {
  if (every_tested_slot_passes_ < 0) {
    every_tested_slot_passes_ = 0;
    // Only with the graph made for this problem's tested strings (a test may change a copy's).
    if (!graph_ || graph_->exhaustive_length != p_.strings.exhaustive_length ||
        graph_->extra_path.size() != p_.extra_strings.size()) {
      return false;
    }
    const std::size_t g = graph_->groups;
    // Each row judged against the graph's expected row as it stands, its verdict not kept:
    // a correct head needs none of them afterwards, and for another the grade goes on by
    // state_verdict, which finds again at most the ones judged here.
    const double margin = fast_->margin();
    const auto passes = [&](std::size_t slot) {
      const int state = static_cast<int>(slot / g);
      fast_->row(graph_->counts_of(state), slot % g, out_);
      note_error(graph_->expected_row(state, slot % g));
      const Verdict verdict = headgrader::judge(out_, graph_->expected_row(state, slot % g),
                                                p_.n_v, p_.tolerance, margin);
      tested_slot_fails_ = verdict == Verdict::kFail;
      return verdict == Verdict::kPass;
    };
    for (std::size_t state = 1; state < graph_->exhaustive_states; ++state) {
      const int* n = graph_->counts_of(static_cast<int>(state));
      for (std::size_t a = 0; a < g; ++a) {
        if (n[a] > 0 && !passes(state * g + a)) return false;
      }
    }
    for (const int slot : graph_->extra_only_slots) {
      if (!passes(static_cast<std::size_t>(slot))) return false;
    }
    every_tested_slot_passes_ = 1;
  }
  return every_tested_slot_passes_ == 1;
}

signed char PrefixJudge::Impl::path_verdict(std::size_t path) {
  const std::size_t g = graph_->groups;
  signed char verdict = 0;
  for (std::size_t k = graph_->path_begin[path]; k < graph_->path_begin[path + 1]; ++k) {
    const auto slot = static_cast<std::size_t>(graph_->path_slots[k]);
    signed char known = graph_verdicts_[slot];
    if (known < 0) {
      (void)state_verdict(static_cast<int>(slot / g), slot % g);
      known = graph_verdicts_[slot];
    }
    if (known == 1) return 1;
    verdict = std::max(verdict, known);
  }
  return verdict;
}

std::optional<std::uint64_t> PrefixJudge::Impl::count_failures(int E, FailureCollector& failures) {
  if (!memo_ || E <= 0) return std::nullopt;
  if (E == p_.strings.exhaustive_length && every_tested_slot_passes()) return 0;
  constexpr auto kNone = static_cast<std::size_t>(-1);
  const auto& reps = p_.representatives;
  const std::size_t g = reps.size();
  // strings_of[r] = g^r, the extensions of length r of any prefix (≤ the tested budget).
  std::vector<std::uint64_t> strings_of(static_cast<std::size_t>(E) + 1, 1);
  for (int r = 1; r <= E; ++r) strings_of[r] = strings_of[r - 1] * g;

  // The states reached by passing prefixes, depth by depth (a state's depth is the sum of
  // its counts): listed[level[d] .. level[d+1]) are those of depth d. A failing prefix needs
  // no state: its whole subtree fails.
  std::vector<int> listed{0};  // the empty prefix
  std::vector<std::size_t> level{0, 1};
  listed.reserve(state_count());
  level.reserve(static_cast<std::size_t>(E) + 2);
  std::vector<std::size_t> row(state_count(), kNone);  // state -> its row in `passing`
  row[0] = 0;
  for (int d = 0; d < E; ++d) {
    for (std::size_t i = level[d]; i < level[d + 1]; ++i) {
      for (std::size_t a = 0; a < g; ++a) {
        const int c = next_state(listed[i], a);
        const Verdict verdict = state_verdict(c, a);
        if (verdict == Verdict::kTooClose) return std::nullopt;  // judge each prefix instead
        if (verdict == Verdict::kFail) continue;
        if (static_cast<std::size_t>(c) >= row.size()) row.resize(state_count(), kNone);
        if (row[c] == kNone) {
          row[c] = listed.size();
          listed.push_back(c);
        }
      }
    }
    level.push_back(listed.size());
  }
  // passing[row[s] * (E + 1) + r]: extensions of length r (≤ E − depth) of a passing prefix
  // in state s whose every position passes. Deepest states first: a child's are ready.
  const std::size_t width = static_cast<std::size_t>(E) + 1;
  std::vector<std::uint64_t> passing(listed.size() * width, 0);
  const auto passing_of = [&](int state) { return &passing[row[state] * width]; };
  for (int d = E; d >= 0; --d) {
    for (std::size_t i = level[d]; i < level[d + 1]; ++i) {
      std::uint64_t* mine = passing_of(listed[i]);
      mine[0] = 1;
      for (std::size_t a = 0; a < g && d < E; ++a) {
        const int c = next_state(listed[i], a);
        if (state_verdict(c, a) != Verdict::kPass) continue;
        const std::uint64_t* child = passing_of(c);
        for (int r = 1; r <= E - d; ++r) mine[r] += child[r - 1];
      }
    }
  }
  std::uint64_t failed = 0;
  for (int r = 1; r <= E; ++r) failed += strings_of[r] - passing_of(0)[r];

  // The failing strings that could make the report: each length in alphabet order, visiting
  // only subtrees that hold a failure of that length, until one is not kept.
  TokenString s;
  const auto visit = [&](auto& self, std::size_t d, int state, bool failed_above) -> bool {
    if (d == s.size()) return failures.add(s);
    const std::size_t r = s.size() - d - 1;  // tokens after this one
    for (std::size_t a = 0; a < g; ++a) {
      bool fails = failed_above;
      int c = -1;
      if (!fails) {
        c = next_state(state, a);
        fails = state_verdict(c, a) == Verdict::kFail;
        if (!fails && passing_of(c)[r] == strings_of[r]) continue;  // nothing fails below
      }
      s[d] = reps[a];
      if (!self(self, d + 1, c, fails)) return false;
    }
    return true;
  };
  for (int length = 1; length <= E && failures.accepts(static_cast<std::size_t>(length));
       ++length) {
    s.assign(static_cast<std::size_t>(length), 0);
    visit(visit, 0, 0, false);
  }
  return failed;
}

PrefixJudge::PrefixJudge(const Problem& p, const HeadWeights& w, int max_depth)
    : impl_(std::make_unique<Impl>(p, w, max_depth)) {}
PrefixJudge::~PrefixJudge() = default;
bool PrefixJudge::passes(std::span<const int> prefix) { return impl_->passes(prefix); }
bool PrefixJudge::string_passes(std::span<const int> s) { return impl_->string_passes(s); }
bool PrefixJudge::extra_string_passes(std::size_t i) { return impl_->extra_string_passes(i); }
bool PrefixJudge::every_tested_string_passes() { return impl_->every_tested_slot_passes(); }
double PrefixJudge::worst_error() const { return impl_->worst_error(); }
bool PrefixJudge::some_tested_string_fails() {
  return !impl_->every_tested_slot_passes() && impl_->tested_slot_fails();
}
std::optional<std::uint64_t> PrefixJudge::count_exhaustive_failures(int E,
                                                                  FailureCollector& failures) {
  return impl_->count_failures(E, failures);
}

std::uint64_t grade_exhaustive(const Problem& p, const HeadWeights& w, PrefixJudge* judge,
                               FailureCollector& failures) {
  const auto& reps = p.representatives;
  const int E = p.strings.exhaustive_length;
  std::uint64_t failed = 0;
  if (judge) {
    if (const auto counted = judge->count_exhaustive_failures(E, failures)) return *counted;
    walk_prefixes(reps, E, [&](std::span<const int> prefix) {
      if (grading_cancelled()) return false;  // back up to the root without a look
      if (judge->passes(prefix)) return true;
      failed += 1 + exhaustive_count(reps.size(), E - static_cast<int>(prefix.size()));
      failures.add_subtree(prefix, reps, E);
      return false;  // every string below fails too
    });
    return failed;
  }
  // Without the mask a position sees the whole string: no prefix can be shared.
  walk_prefixes(reps, E, [&](std::span<const int> prefix) {
    if (grading_cancelled()) return false;
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

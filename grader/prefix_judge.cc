// Judging prefixes of a causal head one after another, and the exhaustive set over count
// states (prefix_judge.h).
#include "prefix_judge.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <vector>

#include "count_states.h"
#include "group_count_head.h"
#include "headgrader/grade.h"
#include "headgrader/strings.h"
#include "prefix_expected.h"
#include "prefix_head.h"
#include "row_verdict.h"
#include "state_verdicts.h"

namespace headgrader {

// Judges one prefix after another, each the parent's extension by one token.
class PrefixJudge::Impl {
 public:
  Impl(const Problem& p, const HeadWeights& w, const TokenKinds* kinds)
      : p_(p),
        w_(w),
        kinds_(kinds),
        by_counts_(kinds_ != nullptr),
        memo_(by_counts_ && kinds_->expected_by_kinds()),
        max_depth_(p.strings.max_length),
        row_(2 * p.n_v) {
    if (!by_counts_) return;
    fast_.emplace(p, w, *kinds_);
    // The problem's own states (they reach strings.max_length and hold the extra strings'
    // paths) when it has them and they count these kinds; otherwise found as they are met.
    if (const CountStateGraph* graph = p.count_states();
        memo_ && graph && graph->kinds == kinds_->size()) {
      graph_ = graph;
      states_.emplace(*graph);
    } else {
      states_.emplace(kinds_->size());
    }
  }

  // The exhaustive set's failures counted over count states instead of prefixes (see
  // count_exhaustive_failures in prefix_judge.h); nullopt, with nothing added, when it cannot be.
  std::optional<std::uint64_t> count_failures(int E, FailureCollector& failures);

  // Every position of s, from the verdicts already known for its states while they last.
  bool string_passes(std::span<const int> s) {
    if (memo_) {
      int state = 0;
      std::size_t d = 0;
      for (; d < s.size(); ++d) {
        const std::size_t kind = kind_of(s[d], d + 1);
        state = states_->next(state, kind);
        const Verdict known = states_->verdict(state, kind);
        if (known == Verdict::kFail) return false;
        if (known != Verdict::kPass) break;  // not judged yet, or too close to call
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

  // extra_strings[i]: from the verdict of its path when there is the problem's graph.
  bool extra_string_passes(std::size_t i) {
    if (every_tested_slot_passes()) return true;
    if (graph_) {
      if (path_verdicts_.empty()) {
        path_verdicts_.assign(graph_->path_begin.size() - 1, Verdict::kUnknown);
      }
      const auto path = static_cast<std::size_t>(graph_->extra_path[i]);
      Verdict& known = path_verdicts_[path];
      if (known == Verdict::kUnknown) known = path_verdict(path);
      if (known != Verdict::kTooClose) return known == Verdict::kPass;
    }
    return string_passes(p_.extra_strings()[i]);
  }

  bool passes(std::span<const int> prefix) {
    const std::size_t d = prefix.size();
    if (!by_counts_) {  // rows depend on position, unlike any kinds: extend the rows
      PrefixHead& rows = exact_rows();
      (void)expected().extend(prefix, want_);  // cannot fault: checked at load
      if (!rows.fast_row(prefix, out_)) {
        rows.exact_last(prefix, out_);
        return judge(0.0) == Verdict::kPass;
      }
      Verdict verdict = judge(rows.margin());
      if (verdict == Verdict::kTooClose) {
        rows.exact_last(prefix, out_);
        verdict = judge(0.0);
      }
      return verdict == Verdict::kPass;
    }
    expected().advance(prefix);
    if (state_at_.empty()) state_at_.assign(static_cast<std::size_t>(max_depth_) + 1, 0);
    const std::size_t kind = kind_of(prefix.back(), d);
    const int state = states_->next(state_at_[d - 1], kind);
    state_at_[d] = state;
    Verdict& known = states_->verdict(state, kind);
    if (memo_ && (known == Verdict::kPass || known == Verdict::kFail)) {
      return known == Verdict::kPass;
    }

    fast_->row(states_->counts(state), kind, out_);
    expected().evaluate(prefix, want_);
    Verdict verdict = judge(fast_->margin());
    if (memo_) known = verdict;
    if (verdict == Verdict::kTooClose) {
      exact_rows().exact(prefix, out_);
      verdict = judge(0.0);
    }
    return verdict == Verdict::kPass;
  }

 private:
  // The kind of `token` at `position` (1-based).
  std::size_t kind_of(int token, std::size_t position) const {
    return kinds_->kind(static_cast<std::size_t>(p_.group_of()[static_cast<std::size_t>(token)]),
                        static_cast<int>(position));
  }

  // Every row judged is judged here (or in every_tested_slot_passes), so worst_ ends as the
  // largest error of a passing head over every tested position.
  Verdict judge(double margin) {
    // One pass over the row: its largest error is both the verdict's and the worst's.
    const double error = row_error(out_, want_, p_.n_v);
    worst_ = worst_of(worst_, error);
    return verdict_of(error, p_.tolerance, margin);
  }
  void note_error(const double* expected) {
    const double error = row_error(out_, expected, p_.n_v);
    worst_ = worst_of(worst_, error);
  }

 public:
  double worst_error() const { return worst_; }

 private:
  double worst_ = 0;

  const Problem& p_;
  const HeadWeights& w_;
  // What count states count (the problem's, or a test's); null when the prefixes must be
  // judged one by one.
  const TokenKinds* const kinds_;
  const bool by_counts_, memo_;
  std::optional<GroupCountHead> fast_;
  // The exact rows, built on first use: over kinds they are needed only for close calls;
  // otherwise for every prefix, from tables of the (group, position) keys.
  PrefixHead& exact_rows() {
    if (!rows_ && by_counts_) rows_.emplace(p_.head, w_, max_depth_);
    if (!rows_) {
      rows_.emplace(p_.head, w_, max_depth_, p_.group_of(), p_.representatives().size());
    }
    return *rows_;
  }

  // `expected` along the prefixes shown to passes(), built on first use: grading over the
  // problem's count states reads the expected rows from the graph instead.
  PrefixExpected& expected() {
    if (!expected_) expected_.emplace(p_, max_depth_);
    return *expected_;
  }

  Verdict state_verdict(int state, std::size_t kind);
  // kPass when every slot of the path passes, kFail when one fails, kTooClose when none
  // fails but one is too close to call from its state (the string is then judged prefix by
  // prefix).
  Verdict path_verdict(std::size_t path);

  int max_depth_;
  std::optional<PrefixHead> rows_;
  std::optional<PrefixExpected> expected_;
  std::optional<bool> every_tested_slot_passes_;  // found on first use
  bool tested_slot_fails_ = false;  // every_tested_slot_passes stopped at a clear failure
  // The problem's graph when it has one: its states are then states_, and it gives the
  // expected rows and the extra strings' paths too.
  const CountStateGraph* graph_ = nullptr;
  std::vector<Verdict> path_verdicts_;  // per graph_ path, made on first use
  std::optional<StateVerdicts> states_;

  // The state of the prefix of each length on the current path (made on first use).
  std::vector<int> state_at_;
  std::vector<double> row_;  // out_ then want_: the head's row and `expected`'s, n_v each
  double* const out_ = row_.data();
  double* const want_ = out_ + p_.n_v;
  TokenString canonical_;                  // scratch for expected_at_state
  std::vector<int> class_counts_, spell_;  // scratch for expected_at_state
};

// The verdict of any prefix in `state` whose last token is of kind `kind`, found once: when
// `expected` too is a function of kind counts, every such prefix has the same fast row and
// expected row (the problem's, or evaluated on one such prefix).
Verdict PrefixJudge::Impl::state_verdict(int state, std::size_t kind) {
  Verdict& known = states_->verdict(state, kind);
  if (known == Verdict::kUnknown) {
    const int* n = states_->counts(state);
    fast_->row(n, kind, out_);
    if (graph_) {
      std::copy_n(graph_->expected_row(state, kind), p_.n_v, want_);
    } else {
      // Cannot fault: `expected` was checked on the tested set at load.
      (void)expected_at_state(p_, *kinds_, n, kind, canonical_, class_counts_, spell_, want_);
    }
    known = judge(fast_->margin());
  }
  return known;
}

bool PrefixJudge::Impl::every_tested_slot_passes() {
  if (!every_tested_slot_passes_) {
    every_tested_slot_passes_ = false;
    if (!graph_) return false;
    const std::size_t g = graph_->kinds;
    // Each row judged against the graph's expected row as it stands, its verdict not kept:
    // a correct head needs none of them afterwards, and for another the grade goes on by
    // state_verdict, which finds again at most the ones judged here.
    const double margin = fast_->margin();
    const auto passes = [&](std::size_t slot) {
      const int state = static_cast<int>(slot / g);
      fast_->row(graph_->counts_of(state), slot % g, out_);
      note_error(graph_->expected_row(state, slot % g));
      const Verdict verdict = headgrader::judge(out_, graph_->expected_row(state, slot % g), p_.n_v,
                                                p_.tolerance, margin);
      tested_slot_fails_ = verdict == Verdict::kFail;
      return verdict == Verdict::kPass;
    };
    for (std::size_t state = 1; state < graph_->exhaustive_states; ++state) {
      const int* n = graph_->counts_of(static_cast<int>(state));
      // The last token is of a kind its position can hold.
      const std::size_t first = kinds_->first_at(std::accumulate(n, n + g, 0));
      for (std::size_t a = first; a < first + kinds_->groups(); ++a) {
        if (n[a] > 0 && !passes(state * g + a)) return false;
      }
    }
    for (const int slot : graph_->extra_only_slots) {
      if (!passes(static_cast<std::size_t>(slot))) return false;
    }
    every_tested_slot_passes_ = true;
  }
  return *every_tested_slot_passes_;
}

Verdict PrefixJudge::Impl::path_verdict(std::size_t path) {
  const std::size_t g = graph_->kinds;
  Verdict verdict = Verdict::kPass;
  for (std::size_t k = graph_->path_begin[path]; k < graph_->path_begin[path + 1]; ++k) {
    const auto slot = static_cast<std::size_t>(graph_->path_slots[k]);
    const Verdict known = state_verdict(static_cast<int>(slot / g), slot % g);
    if (known == Verdict::kFail) return Verdict::kFail;
    if (known == Verdict::kTooClose) verdict = Verdict::kTooClose;
  }
  return verdict;
}

std::optional<std::uint64_t> PrefixJudge::Impl::count_failures(int E, FailureCollector& failures) {
  if (!memo_ || E <= 0) return std::nullopt;
  if (E == p_.strings.exhaustive_length && every_tested_slot_passes()) return 0;
  constexpr auto kNone = static_cast<std::size_t>(-1);
  const std::size_t g = kinds_->groups();  // the tokens a position can hold: one kind each
  // strings_of[r] = g^r, the extensions of length r of any prefix (≤ the tested budget).
  std::vector<std::uint64_t> strings_of(static_cast<std::size_t>(E) + 1, 1);
  for (int r = 1; r <= E; ++r) strings_of[r] = strings_of[r - 1] * g;

  // The states reached by passing prefixes, depth by depth (a state's depth is the sum of
  // its counts): listed[level[d] .. level[d+1]) are those of depth d. A failing prefix needs
  // no state: its whole subtree fails.
  std::vector<int> listed{0};  // the empty prefix
  std::vector<std::size_t> level{0, 1};
  listed.reserve(states_->size());
  level.reserve(static_cast<std::size_t>(E) + 2);
  std::vector<std::size_t> row(states_->size(), kNone);  // state -> its row in `passing`
  row[0] = 0;
  for (int d = 0; d < E; ++d) {
    const std::size_t first = kinds_->first_at(d + 1);
    for (std::size_t i = level[d]; i < level[d + 1]; ++i) {
      for (std::size_t a = first; a < first + g; ++a) {
        const int c = states_->next(listed[i], a);
        const Verdict verdict = state_verdict(c, a);
        if (verdict == Verdict::kTooClose) return std::nullopt;  // judge each prefix instead
        if (verdict == Verdict::kFail) continue;
        if (static_cast<std::size_t>(c) >= row.size()) row.resize(states_->size(), kNone);
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
    const std::size_t first = d < E ? kinds_->first_at(d + 1) : 0;
    for (std::size_t i = level[d]; i < level[d + 1]; ++i) {
      std::uint64_t* mine = passing_of(listed[i]);
      mine[0] = 1;
      for (std::size_t a = first; a < first + g && d < E; ++a) {
        const int c = states_->next(listed[i], a);
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
    const std::size_t first = kinds_->first_at(static_cast<int>(d) + 1);
    for (std::size_t a = first; a < first + g; ++a) {
      bool fails = failed_above;
      int c = -1;
      if (!fails) {
        c = states_->next(state, a);
        fails = state_verdict(c, a) == Verdict::kFail;
        if (!fails && passing_of(c)[r] == strings_of[r]) continue;  // nothing fails below
      }
      s[d] = kinds_->token(a);
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

PrefixJudge::PrefixJudge(const Problem& p, const HeadWeights& w)
    : impl_(std::make_unique<Impl>(p, w, p.token_kinds())) {}
PrefixJudge::PrefixJudge(const Problem& p, const HeadWeights& w, std::optional<TokenKinds> kinds)
    : own_kinds_(std::move(kinds)),
      impl_(std::make_unique<Impl>(p, w, own_kinds_ ? &*own_kinds_ : nullptr)) {}
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

}  // namespace headgrader

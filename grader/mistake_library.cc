#include "mistake_library.h"

#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

#include "headgrader/limits.h"
#include "headgrader/report.h"

namespace headgrader {
namespace {

std::string num(double x) { return number_to_json(x).dump(); }
bool is_zero(const Matrix& m) { return (m.array() == 0).all(); }

// --- What the entries share ------------------------------------------------------------

// Both score matrices non-zero: the head attends by its scores, not uniformly.
bool scores_vary(const HeadWeights& w) { return !is_zero(w.W_q) && !is_zero(w.W_k); }

// "up to length 8, within 0.1": the tested set, for messages.
std::string tested_words(const Problem& p) {
  return "within " + num(p.tolerance) + " of the expected output at every position up to length " +
         std::to_string(p.strings.max_length);
}

// The score matrix a too-soft (or wrong-class) head is blamed on: W_k when submitted.
const char* scored_matrix(const Trials& t) { return t.submitted("W_k") ? "W_k" : "W_q"; }

// Among the submitted W_q and W_k, whether the key is the softer one relative to the
// reference's (it only names the mistake: scaling either changes the scores alike).
bool key_is_softer(const Trials& t) {
  if (!t.submitted("W_q")) return true;
  if (!t.submitted("W_k")) return false;
  const auto ratio = [](const Matrix& mine, const Matrix& ref) {
    const double r = ref.norm();
    return r == 0 ? INFINITY : mine.norm() / r;
  };
  return ratio(t.w.W_k, t.ref().W_k) <= ratio(t.w.W_q, t.ref().W_q);
}

// The 2-significant-figure numbers above `lo` up to the first one ≥ `hi`, ascending.
std::vector<double> two_figure_grid(double lo, double hi) {
  std::vector<double> grid;
  for (int e = static_cast<int>(std::floor(std::log10(lo))) - 1;; ++e) {
    for (int m = 10; m <= 99; ++m) {
      // m · 10^e, divided rather than multiplied when e < 0 so that 2.1 is the double 2.1.
      const double v = e >= 0 ? m * std::pow(10.0, e) : m / std::pow(10.0, -e);
      if (v <= lo) continue;
      grid.push_back(v);
      if (v >= hi) return grid;
    }
  }
}

// --- The mistakes ------------------------------------------------------------------------

bool uniform_applies(const Trials& t) {
  return (t.submitted("W_q") && is_zero(t.w.W_q)) || (t.submitted("W_k") && is_zero(t.w.W_k));
}
std::optional<Diagnosis> uniform_prove(Trials& t) {
  HeadWeights changed = t.w;
  changed.W_q = t.ref().W_q;
  changed.W_k = t.ref().W_k;
  if (!t.passes(changed)) return std::nullopt;
  const std::string zero = t.submitted("W_k") && is_zero(t.w.W_k) ? "W_k" : "W_q";
  return Diagnosis{"uniform_attention",
                   "your " + zero +
                       " is all zeros, so every score is 0 and each position attends equally to "
                       "every token so far (its output is the plain average of the values); with "
                       "a W_q and W_k that attend where they should, your W_V passes every "
                       "tested string",
                   "give " + zero +
                       " non-zero entries so that the tokens the output depends on score higher "
                       "than the others"};
}
std::vector<LintChange> uniform_lint(const Problem& p, const Trials& t) {
  HeadWeights changed = p.reference;
  changed.by_name(scored_matrix(t)).setZero();
  return {{changed, std::string("uniform attention (") + scored_matrix(t) + " all 0)"}};
}

bool swapped_applies(const Trials& t) {
  return t.submitted("W_q") && t.submitted("W_k") && scores_vary(t.w) && t.w.W_q != t.w.W_k;
}
std::optional<Diagnosis> swapped_prove(Trials& t) {
  HeadWeights changed = t.w;
  std::swap(changed.W_q, changed.W_k);
  if (!t.passes(changed)) return std::nullopt;
  return Diagnosis{"query_key_swapped",
                   "exchanging W_q and W_k passes every tested string: the query (W_q r_i) is "
                   "what a position looks for, the key (W_k r_j) what each token offers, and "
                   "yours are the other way round",
                   "swap your W_q and W_k"};
}
std::vector<LintChange> swapped_lint(const Problem& p, const Trials& t) {
  if (!swapped_applies(t)) return {};
  HeadWeights changed = p.reference;
  std::swap(changed.W_q, changed.W_k);
  return {{changed, "W_q and W_k exchanged"}};
}

bool wrong_class_applies(const Trials& t) {
  return (t.submitted("W_q") || t.submitted("W_k")) && scores_vary(t.w);
}
std::optional<Diagnosis> wrong_class_prove(Trials& t) {
  const std::string m = scored_matrix(t);
  HeadWeights changed = t.w;
  changed.by_name(m) = -changed.by_name(m);
  if (!t.passes(changed)) return std::nullopt;
  return Diagnosis{"attends_to_wrong_class",
                   "negating " + m +
                       " passes every tested string: your scores are highest on the tokens the "
                       "head should look away from, so the attention goes to the wrong class",
                   "flip the sign of " + m + " (or of " + (m == "W_k" ? "W_q" : "W_k") +
                       ") so that the tokens the output depends on get the highest scores"};
}
std::vector<LintChange> wrong_class_lint(const Problem& p, const Trials& t) {
  HeadWeights changed = p.reference;
  changed.by_name(scored_matrix(t)) = -changed.by_name(scored_matrix(t));
  return {{changed, std::string("the scores' sign flipped (") + scored_matrix(t) + " negated)"}};
}

// The smallest 2-figure factor on `m` that passes, by doubling then bisection on the grid;
// nullopt when none up to limits::kMaxScoreFactor does. `below` is the grid's predecessor.
struct Factor {
  double factor, below;
};
std::optional<Factor> smallest_passing_factor(Trials& t, const char* m) {
  const auto passes_with = [&](double c) {
    HeadWeights changed = t.w;
    changed.by_name(m) *= c;
    return t.passes(changed);
  };
  // The largest factor first: when even it fails, sharper scores do not help (one grading
  // instead of ten for the common case of a head attending to the wrong tokens).
  if (!passes_with(limits::kMaxScoreFactor)) return std::nullopt;
  double lo = 1, hi = 2;
  while (hi < limits::kMaxScoreFactor && !passes_with(hi)) {
    lo = hi;
    hi *= 2;
  }
  const std::vector<double> grid = two_figure_grid(lo, hi);
  // grid[first] is the first that passes: below it all fail (index -1 is lo, known to fail).
  std::ptrdiff_t fails = -1, passes = static_cast<std::ptrdiff_t>(grid.size()) - 1;
  const bool last_known = grid.back() == hi;
  while (passes - fails > 1) {
    const std::ptrdiff_t mid = fails + (passes - fails) / 2;
    (passes_with(grid[static_cast<std::size_t>(mid)]) ? passes : fails) = mid;
  }
  const auto at = static_cast<std::size_t>(passes);
  if (at + 1 == grid.size() && !last_known && !passes_with(grid[at])) return Factor{hi, grid[at]};
  return Factor{grid[at], at == 0 ? lo : grid[at - 1]};
}

std::optional<Diagnosis> too_soft_prove(Trials& t, const char* m, const char* mistake,
                                        const char* noun) {
  const auto found = smallest_passing_factor(t, m);
  if (!found) return std::nullopt;
  const std::string other = std::string(m) == "W_k" ? "W_q" : "W_k";
  return Diagnosis{mistake,
                   "multiplying " + std::string(m) + " by " + num(found->factor) +
                       " passes every tested string (" + num(found->below) + " does not): your " +
                       noun +
                       " points the right way but is too soft; softmax needs a larger gap "
                       "between the scores to come " +
                       tested_words(t.p),
                   "multiply " + std::string(m) + " by " + num(found->factor) + " or more (or " +
                       other + ": the scores are their product)"};
}
bool key_too_soft_applies(const Trials& t) {
  return t.submitted("W_k") && scores_vary(t.w) && key_is_softer(t);
}
std::optional<Diagnosis> key_too_soft_prove(Trials& t) {
  return too_soft_prove(t, "W_k", "key_too_soft", "key");
}
bool query_too_soft_applies(const Trials& t) {
  return t.submitted("W_q") && scores_vary(t.w) && !key_too_soft_applies(t);
}
std::optional<Diagnosis> query_too_soft_prove(Trials& t) {
  return too_soft_prove(t, "W_q", "query_too_soft", "query");
}
// The factor a lint applies to the reference's scores: a key half as sharp.
constexpr double kLintSoftFactor = 0.5;
std::vector<LintChange> soft_lint(const Problem& p, const char* m) {
  HeadWeights changed = p.reference;
  changed.by_name(m) *= kLintSoftFactor;
  return {{changed, std::string("a too-soft ") + (std::string(m) == "W_k" ? "key" : "query") +
                        " (" + m + " × " + num(kLintSoftFactor) + ")"}};
}
std::vector<LintChange> key_too_soft_lint(const Problem& p, const Trials& t) {
  if (!t.submitted("W_k")) return {};
  return soft_lint(p, "W_k");
}
std::vector<LintChange> query_too_soft_lint(const Problem& p, const Trials& t) {
  if (t.submitted("W_k") || !t.submitted("W_q")) return {};
  return soft_lint(p, "W_q");
}

Eigen::Index value_rows(const Trials& t) { return t.w.W_V.rows(); }
bool rows_swapped_applies(const Trials& t) {
  return t.submitted("W_V") && value_rows(t) >= 2 &&
         static_cast<std::size_t>(value_rows(t)) <= limits::kMaxDiagnosedValueRows;
}
std::optional<Diagnosis> rows_swapped_prove(Trials& t) {
  for (Eigen::Index i = 0; i < value_rows(t); ++i) {
    for (Eigen::Index j = i + 1; j < value_rows(t); ++j) {
      if (t.w.W_V.row(i) == t.w.W_V.row(j)) continue;
      HeadWeights changed = t.w;
      changed.W_V.row(i).swap(changed.W_V.row(j));
      if (!t.passes(changed)) continue;
      const std::string a = std::to_string(i + 1), b = std::to_string(j + 1);
      return Diagnosis{"value_rows_swapped",
                       "exchanging rows " + a + " and " + b +
                           " of W_V passes every tested string: your attention is right, but "
                           "output components " +
                           a + " and " + b + " come out in each other's place",
                       "swap rows " + a + " and " + b + " of W_V"};
    }
  }
  return std::nullopt;
}
std::vector<LintChange> rows_swapped_lint(const Problem& p, const Trials& t) {
  const Matrix& V = p.reference.W_V;
  std::vector<LintChange> changes;
  for (Eigen::Index i = 0; i < V.rows() && t.submitted("W_V"); ++i) {
    for (Eigen::Index j = i + 1; j < V.rows(); ++j) {
      if (V.row(i) == V.row(j)) continue;
      HeadWeights changed = p.reference;
      changed.W_V.row(i).swap(changed.W_V.row(j));
      changes.push_back({std::move(changed), "W_V with rows " + std::to_string(i + 1) + " and " +
                                                 std::to_string(j + 1) + " exchanged"});
    }
  }
  return changes;
}

bool value_wrong_applies(const Trials& t) { return t.submitted("W_V") && t.w.W_V != t.ref().W_V; }
std::optional<Diagnosis> value_wrong_prove(Trials& t) {
  HeadWeights changed = t.w;
  changed.W_V = t.ref().W_V;
  if (!t.passes(changed)) return std::nullopt;
  // Output component c depends only on row c of W_V: with every other row correct, the
  // student's row c fails exactly when component c is off.
  std::vector<std::string> off;
  for (Eigen::Index c = 0;
       c < value_rows(t) && static_cast<std::size_t>(c) < limits::kMaxDiagnosedValueRows; ++c) {
    if (t.w.W_V.row(c) == t.ref().W_V.row(c)) continue;
    HeadWeights one = changed;
    one.W_V.row(c) = t.w.W_V.row(c);
    if (!t.passes(one)) off.push_back(std::to_string(c + 1));
  }
  std::string listed;
  for (std::size_t k = 0; k < off.size(); ++k) {
    listed += (k == 0 ? "" : k + 1 == off.size() ? " and " : ", ") + off[k];
  }
  const bool one = off.size() == 1;
  const std::string which =
      off.empty() ? "some output components are off"
                  : std::string(one ? "output component " : "output components ") + listed +
                        (one ? " is off (row " : " are off (rows ") + listed + " of W_V)";
  return Diagnosis{"value_wrong",
                   "your attention is right (with a correct W_V your W_q and W_k pass every "
                   "tested string), but your W_V is not: " +
                       which,
                   "fix " + std::string(off.size() == 1 ? "that row" : "those rows") +
                       " of W_V: V = W_V r_j is what each token contributes to the output, so "
                       "work out what each kind of token must contribute there"};
}
std::vector<LintChange> value_wrong_lint(const Problem& p, const Trials& t) {
  const Matrix& V = p.reference.W_V;
  std::vector<LintChange> changes;
  for (Eigen::Index c = 0; c < V.rows() && t.submitted("W_V"); ++c) {
    if ((V.row(c).array() == 0).all()) continue;
    HeadWeights changed = p.reference;
    changed.W_V.row(c).setZero();
    changes.push_back({std::move(changed), "W_V with row " + std::to_string(c + 1) +
                                               " set to 0 (output component " +
                                               std::to_string(c + 1) + " always 0)"});
  }
  return changes;
}

// The (matrix, feature) pairs where `w` gives a position feature (a row W_P sets) no weight
// and the reference does: the 0-based columns, per score matrix.
struct PositionGap {
  std::string matrix;
  std::vector<Eigen::Index> columns;
};
std::vector<PositionGap> position_gaps(const Trials& t, const HeadWeights& w) {
  std::vector<PositionGap> gaps;
  if (!t.p.head.W_P) return gaps;
  const Matrix& P = *t.p.head.W_P;
  for (const char* m : {"W_q", "W_k"}) {
    if (!t.submitted(m)) continue;
    PositionGap gap{m, {}};
    for (Eigen::Index f = 0; f < P.rows(); ++f) {
      const bool position_feature = !(P.row(f).array() == 0).all();
      if (position_feature && (w.by_name(m).col(f).array() == 0).all() &&
          !(t.ref().by_name(m).col(f).array() == 0).all()) {
        gap.columns.push_back(f);
      }
    }
    if (!gap.columns.empty()) gaps.push_back(std::move(gap));
  }
  return gaps;
}
bool no_position_applies(const Trials& t) {
  return scores_vary(t.w) && !position_gaps(t, t.w).empty();
}
std::optional<Diagnosis> no_position_prove(Trials& t) {
  const auto gaps = position_gaps(t, t.w);
  HeadWeights with_columns = t.w;  // the reference's weights on the position features only
  for (const auto& gap : gaps) {
    for (const Eigen::Index f : gap.columns) {
      with_columns.by_name(gap.matrix).col(f) = t.ref().by_name(gap.matrix).col(f);
    }
  }
  HeadWeights with_attention = t.w;
  with_attention.W_q = t.ref().W_q;
  with_attention.W_k = t.ref().W_k;
  if (!t.passes(with_columns) && !t.passes(with_attention)) return std::nullopt;
  std::string where;
  for (const auto& gap : gaps) {
    std::string cols;
    for (std::size_t k = 0; k < gap.columns.size(); ++k) {
      cols += (k ? ", " : "") + std::to_string(gap.columns[k] + 1);
    }
    where += (where.empty() ? "" : "; ") + gap.matrix + " (column" +
             (gap.columns.size() == 1 ? " " : "s ") + cols + ")";
  }
  return Diagnosis{
      "no_position_feature",
      "your W_q and W_k give the position feature (the embedding rows that W_P "
      "sets) no weight: " +
          where +
          " is all 0, so tokens at different positions look alike to the "
          "attention; with the position feature weighted, the attention is right "
          "and your head passes every tested string",
      "give " + where + " a non-zero weight, so that the scores tell the positions apart"};
}
std::vector<LintChange> no_position_lint(const Problem& p, const Trials& t) {
  HeadWeights changed = p.reference;
  bool changed_any = false;
  for (const char* m : {"W_q", "W_k"}) {
    if (!t.submitted(m) || !p.head.W_P) continue;
    for (Eigen::Index f = 0; f < p.head.W_P->rows(); ++f) {
      if (!(p.head.W_P->row(f).array() == 0).all() &&
          !(changed.by_name(m).col(f).array() == 0).all()) {
        changed.by_name(m).col(f).setZero();
        changed_any = true;
      }
    }
  }
  if (!changed_any) return {};
  return {{changed, "no weight on the position features in W_q and W_k"}};
}

constexpr int kSoftGradings = 17;  // 1024, 9 doublings up to 512, 6 bisections, 1 check
constexpr Mistake kLibrary[] = {
    {"uniform_attention", 1, uniform_applies, uniform_prove, uniform_lint, true, nullptr},
    {"query_key_swapped", 1, swapped_applies, swapped_prove, swapped_lint, true, nullptr},
    {"attends_to_wrong_class", 1, wrong_class_applies, wrong_class_prove, wrong_class_lint, true,
     nullptr},
    {"key_too_soft", kSoftGradings, key_too_soft_applies, key_too_soft_prove, key_too_soft_lint,
     true, nullptr},
    {"query_too_soft", kSoftGradings, query_too_soft_applies, query_too_soft_prove,
     query_too_soft_lint, true, nullptr},
    {"value_rows_swapped", 28, rows_swapped_applies, rows_swapped_prove, rows_swapped_lint, false,
     nullptr},
    {"value_wrong", 1 + static_cast<int>(limits::kMaxDiagnosedValueRows), value_wrong_applies,
     value_wrong_prove, value_wrong_lint, false, "value_rows_swapped"},
    {"no_position_feature", 2, no_position_applies, no_position_prove, no_position_lint, true,
     nullptr},
};

}  // namespace

std::span<const Mistake> mistake_library() { return kLibrary; }

}  // namespace headgrader

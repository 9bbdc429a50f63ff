#include "unmasked_judge.h"

#include <algorithm>
#include <cmath>

#include "headgrader/attention.h"
#include "row_verdict.h"

namespace headgrader {

UnmaskedJudge::UnmaskedJudge(const Problem& p, const HeadWeights& w)
    : p_(p),
      w_(w),
      rows_(p.head, w, p.strings.max_length, p.group_of(), p.representatives().size()),
      expected_(p, p.strings.max_length),
      want_(static_cast<std::size_t>(p.strings.max_length) * p.n_v),
      out_(p.n_v) {}

void UnmaskedJudge::expected_rows(std::span<const int> s) {
  std::size_t same = 0;
  while (same < std::min(last_.size(), s.size()) && last_[same] == s[same]) ++same;
  last_.assign(s.begin(), s.end());
  for (std::size_t d = same; d < s.size(); ++d) {
    // Cannot fault: `expected` was checked on every tested string at load.
    (void)expected_.extend(s.first(d + 1), &want_[d * p_.n_v]);
  }
}

void UnmaskedJudge::note_error(const double* out, const double* expected) {
  const double error = row_error(out, expected, p_.n_v);
  worst_ = worst_of(worst_, error);
}

bool UnmaskedJudge::exactly_passes(std::span<const int> s) {
  const Matrix out = head_output(p_.head, w_, s);
  bool passes = true;
  for (std::size_t i = 0; i < s.size(); ++i) {
    for (std::size_t c = 0; c < p_.n_v; ++c) out_[c] = out(static_cast<Eigen::Index>(i), c);
    note_error(out_.data(), &want_[i * p_.n_v]);
    passes = passes &&
             judge(out_.data(), &want_[i * p_.n_v], p_.n_v, p_.tolerance, 0.0) == Verdict::kPass;
  }
  return passes;
}

bool UnmaskedJudge::string_passes(std::span<const int> s) {
  expected_rows(s);
  rows_.show(s);
  bool exact = false;
  for (std::size_t i = 0; i < s.size() && !exact; ++i) {
    if (!rows_.fast_row_unmasked(i, out_.data())) {
      exact = true;
      break;
    }
    const double* want = &want_[i * p_.n_v];
    note_error(out_.data(), want);
    const Verdict verdict = judge(out_.data(), want, p_.n_v, p_.tolerance, rows_.margin());
    if (verdict == Verdict::kFail) return false;
    exact = verdict == Verdict::kTooClose;
  }
  return exact ? exactly_passes(s) : true;
}

}  // namespace headgrader

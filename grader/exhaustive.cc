// Grading the exhaustive set (exhaustive.h): counted over count states by the judge when it
// can, else walked as a tree of prefixes; without the mask, every string judged whole.
#include "exhaustive.h"

#include <span>

#include "headgrader/grade.h"
#include "headgrader/grade_cancel.h"
#include "headgrader/strings.h"
#include "prefix_walk.h"

namespace headgrader {

std::uint64_t grade_exhaustive(const Problem& p, PrefixJudge& judge, FailureCollector& failures) {
  const auto& reps = p.representatives();
  const int E = p.strings.exhaustive_length;
  if (const auto counted = judge.count_exhaustive_failures(E, failures)) return *counted;
  std::uint64_t failed = 0;
  walk_prefixes(reps, E, [&](std::span<const int> prefix) {
    if (grading_cancelled()) return false;  // back up to the root without a look
    if (judge.passes(prefix)) return true;
    failed += 1 + exhaustive_count(reps.size(), E - static_cast<int>(prefix.size()));
    failures.add_subtree(prefix, reps, E);
    return false;  // every string below fails too
  });
  return failed;
}

std::uint64_t grade_exhaustive(const Problem& p, UnmaskedJudge& judge, FailureCollector& failures) {
  std::uint64_t failed = 0;
  // Without the mask a failing string says nothing of its extensions: every one is judged.
  walk_prefixes(p.representatives(), p.strings.exhaustive_length, [&](std::span<const int> s) {
    if (grading_cancelled()) return false;
    if (!judge.string_passes(s)) {
      ++failed;
      failures.add(TokenString(s.begin(), s.end()));
    }
    return true;
  });
  return failed;
}

}  // namespace headgrader

// Grading the exhaustive set (exhaustive.h): counted over count states by the judge when it
// can, else walked as a tree of prefixes.
#include "exhaustive.h"

#include <span>

#include "headgrader/grade.h"
#include "headgrader/grade_cancel.h"
#include "headgrader/strings.h"
#include "prefix_walk.h"

namespace headgrader {

std::uint64_t grade_exhaustive(const Problem& p, const HeadWeights& w, PrefixJudge* judge,
                               FailureCollector& failures) {
  const auto& reps = p.representatives();
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

// Judging a causal head's prefixes one after another, each computed once from its parent's.
// The row needs only the prefix's count of each token kind and its last kind (token_kinds.h:
// a group, or with W_P and a fixed `at` a group at a class of positions); when `expected`
// is such a function too, verdicts are kept per count state (the problem's own graph,
// count_states.h, or states found as they are met), and the exhaustive set's failures are
// counted over those states (dynamic programming, no prefix visited twice in the same
// state). Where positions do not compress, each prefix's row is extended from its parent's
// (prefix_head.h). Verdicts equal those of run_head on each prefix, bit for bit.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "failure_collector.h"
#include "headgrader/problem.h"
#include "token_kinds.h"

namespace headgrader {

// Whether the head passes at the last position of each prefix it is shown, for a causal
// head. Prefixes must come parent first: s_1 … s_d right after some s_1 … s_{d-1} sequence
// ending in its parent (a depth-first walk, or the prefixes of one string in order).
// Verdicts equal those of run_head on the prefix, bit for bit. Prefixes are at most
// strings.max_length long, as every tested string is.
class PrefixJudge {
 public:
  PrefixJudge(const Problem& problem, const HeadWeights& weights);
  // Over these kinds instead of TokenKinds::of's (nullopt: every prefix on its own), right
  // or not: for the tests that show a wrong partition of the positions is caught.
  PrefixJudge(const Problem& problem, const HeadWeights& weights, std::optional<TokenKinds> kinds);
  ~PrefixJudge();
  bool passes(std::span<const int> prefix);
  // Whether every position of `s` passes: a walk through the verdicts already known for its
  // count states, then prefix by prefix (passes) from where none is known. `s` may be any
  // string, not one continuing the last prefix shown.
  bool string_passes(std::span<const int> s);
  // string_passes(problem.extra_strings()[i]), judged once for all the extra strings that
  // reach the same count states when the problem's graph lists them (count_states.h).
  bool extra_string_passes(std::size_t i);
  // Whether every tested string passes, known from the count states alone: true only when
  // every (state, last kind) slot a tested prefix reaches passes clearly (the common case
  // of a correct head). False says nothing: the strings must then be judged.
  bool every_tested_string_passes();
  // Whether some tested string fails, known from the count states alone: true only when the
  // scan of every_tested_string_passes met a slot that clearly fails. False says nothing.
  bool some_tested_string_fails();
  // How many strings of the exhaustive set (lengths 1..E) fail, adding those that could make
  // the report to `failures`, computed over count states: a prefix's verdict depends only on
  // its kind counts and last kind, so the passing strings are counted by dynamic
  // programming over states, O(states × groups × E) instead of O(groups^E). nullopt, with
  // nothing added, when verdicts are not a function of the state (positions that do not
  // compress, an `at` of a varying position) or a passing path meets a row too close to the
  // tolerance to judge without the exact per-prefix arithmetic; the caller then walks the
  // tree.
  std::optional<std::uint64_t> count_exhaustive_failures(int E, FailureCollector& failures);
  // The largest |output − expected| over every row judged so far (NaN once a row was NaN):
  // after a grade that passed, the worst error over every tested position.
  double worst_error() const;

 private:
  class Impl;
  std::optional<TokenKinds> own_kinds_;  // a test's kinds, else the problem's are used
  std::unique_ptr<Impl> impl_;
};

}  // namespace headgrader

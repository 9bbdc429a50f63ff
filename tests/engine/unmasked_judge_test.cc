// Heads without the causal mask, judged string by string from each string's parent
// (grader/unmasked_judge.h): the same verdict as string_passes on every string, shown in a
// walk or each on its own, for heads of every sharpness up to the contract's 1e6; grading
// with it gives exactly grade_each_string's report; and rows on the tolerance are judged as
// run_head judges them.
#include "unmasked_judge.h"

#include <gtest/gtest.h>

#include <cmath>

#include "headgrader/attention.h"
#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "prefix_walk.h"
#include "test_support.h"

namespace headgrader {
namespace {

using testing::loaded_or_abort;
using testing::RandomHeads;

// The previous-letter problem without the mask: each row sees the letters after it too.
nlohmann::json unmasked_previous_letter(int length) {
  nlohmann::json j = testing::previous_letter_problem(length);
  j["id"] = "unmasked-previous-" + std::to_string(length);
  j["causal"] = false;
  // Any head passes: the tests compare verdicts, not the problem's answer.
  j["tolerance"] = 10;
  return j;
}

// The tolerance of 10 lets every head pass; the verdicts are compared at `tolerance`.
Problem with_tolerance(int length, double tolerance) {
  nlohmann::json j = unmasked_previous_letter(length);
  const Problem loose = loaded_or_abort(j);
  j["tolerance"] = tolerance;
  j["reference"]["W_V"] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  j["expected"] = "[0, 0]";  // the zero head passes, so the problem loads at any tolerance
  return loaded_or_abort(j);
}

TEST(UnmaskedJudge, EveryStringOfAWalkGetsStringPassesVerdict) {
  const Problem p = with_tolerance(7, 0.3);
  RandomHeads random(41);
  int passing = 0, failing = 0;
  for (int trial = 0; trial < 10; ++trial) {
    HeadWeights w = random.head(p, trial);
    w.W_V = testing::rows({{0, 0.4, 0, 0}, {0.1, 0, 0, 0}});  // rows near 0.3: both verdicts
    UnmaskedJudge judge(p, w);
    walk_prefixes(p.representatives(), 7, [&](std::span<const int> s) {
      const TokenString string(s.begin(), s.end());
      const bool expected = string_passes(p, w, string);
      EXPECT_EQ(judge.string_passes(s), expected) << "trial " << trial << " at " << p.spell(string);
      (expected ? passing : failing) += 1;
      return true;
    });
  }
  EXPECT_GT(passing, 100);
  EXPECT_GT(failing, 100);
}

TEST(UnmaskedJudge, StringsShownEachOnTheirOwnGetStringPassesVerdict) {
  const Problem p = with_tolerance(12, 0.3);
  RandomHeads random(43);
  SplitMix64 pick(3);
  for (int trial = 0; trial < 10; ++trial) {
    HeadWeights w = random.head(p, trial);
    w.W_V = testing::rows({{0, 0.4, 0, 0}, {0.1, 0, 0, 0}});
    UnmaskedJudge judge(p, w);
    for (int n = 0; n < 60; ++n) {
      TokenString s(1 + pick.next() % 12);
      for (int& t : s) t = static_cast<int>(pick.next() % p.alphabet_chars.size());
      EXPECT_EQ(judge.string_passes(s), string_passes(p, w, s))
          << "trial " << trial << " at " << p.spell(s);
    }
  }
}

TEST(UnmaskedJudge, GradingEqualsStringByStringOnRandomHeadsUpToTheContractsLimits) {
  // With random strings up to length 10 beyond the exhaustive set, judged by the same judge.
  nlohmann::json j = unmasked_previous_letter(10);
  j["strings"]["random"] = 20;
  j["strings"]["exhaustive_length"] = 7;
  j["strings"]["seed"] = 2;
  j["tolerance"] = 0.3;
  j["expected"] = "[0, 0]";
  j["reference"]["W_V"] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  const Problem p = loaded_or_abort(j);
  RandomHeads random(47);
  for (int trial = 0; trial < 20; ++trial) {
    HeadWeights w = random.head(p, trial);
    if (trial % 2 == 0) w.W_V = testing::rows({{0, 0.4, 0, 0}, {0.1, 0, 0, 0}});
    testing::expect_same_report(p, w, "trial " + std::to_string(trial));
  }
}

TEST(UnmaskedJudge, RowsOnTheToleranceAreJudgedAsRunHeadJudgesThem) {
  // The tolerance is one head's worst error as run_head gives it over every string up to
  // length 6: its worst rows sit on it, and it passes only if those are judged exactly.
  RandomHeads random(53);
  for (int trial = 0; trial < 5; ++trial) {
    const Problem loose = with_tolerance(6, 10);
    HeadWeights w = random.head(loose, trial % 3);
    w.W_V = testing::rows({{0, 0.4, 0, 0}, {0.1, 0, 0, 0}});
    double worst = 0;
    walk_prefixes(loose.representatives(), 6, [&](std::span<const int> s) {
      worst = std::max(worst, head_output(loose.head, w, s).cwiseAbs().maxCoeff());
      return true;
    });
    const Problem tight = with_tolerance(6, worst);
    const GradeReport report = grade(tight, w, 3);
    EXPECT_TRUE(report.passed) << "trial " << trial << ": " << report.failed << " failed";
    testing::expect_same_report(tight, w, "trial " + std::to_string(trial));
  }
}

}  // namespace
}  // namespace headgrader

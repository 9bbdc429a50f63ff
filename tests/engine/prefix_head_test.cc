// The head along a walk's prefix from tables of (group, position) keys (grader/prefix_head.h):
// its fast rows, from running sums against a fixed maximum, stay within margin() of the head
// written independently of the engine, on heads of every sharpness up to the contract's 1e6,
// along a depth-first walk and along strings each on its own; they decline where the fixed
// maximum is too far above the row's own; the exact row after them is run_head's, bit for
// bit; and a tolerance set to a row's own error is judged as grading each string judges it.
#include "prefix_head.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <variant>

#include "headgrader/attention.h"
#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "prefix_walk.h"
#include "test_support.h"

namespace headgrader {
namespace {

using testing::bundled_json;
using testing::independent_head;
using testing::loaded_or_abort;
using testing::RandomHeads;
using testing::rows;

PrefixHead tables_for(const Problem& p, const HeadWeights& w) {
  return PrefixHead(p.head, w, p.strings.max_length, p.group_of(), p.representatives().size());
}

// What the fast rows of one head did along a walk.
struct FastRowTally {
  int fast = 0, declined = 0, differ_from_exact = 0;
};

// Both heads along the same prefixes, `prefix` after its parent: `fast` by fast_row (within
// the margin of the independent head when it answers), `exact` by extend (run_head's last
// row, bit for bit). A declined row, and with `exact_after_fast` every row, is then computed
// by exact_last, which must give run_head's bits too.
void check_row(const Problem& p, const HeadWeights& w, PrefixHead& fast, PrefixHead& exact,
               std::span<const int> prefix, bool exact_after_fast, FastRowTally& tally,
               const std::string& what) {
  const auto n_v = static_cast<Eigen::Index>(p.n_v);
  const TokenString s(prefix.begin(), prefix.end());
  const AttentionTrace trace = run_head(p.head, w, s);
  const auto last = static_cast<Eigen::Index>(s.size()) - 1;
  const auto expect_run_heads_bits = [&](const std::vector<double>& row, const char* by) {
    for (Eigen::Index c = 0; c < n_v; ++c) {
      ASSERT_EQ(std::memcmp(&row[c], &trace.output(last, c), sizeof(double)), 0)
          << what << " at " << p.spell(s) << ": " << by << " gives " << row[c] << " against "
          << trace.output(last, c);
    }
  };
  std::vector<double> fast_row(p.n_v), exact_row(p.n_v), again(p.n_v);
  exact.extend(prefix, exact_row.data());
  expect_run_heads_bits(exact_row, "extend");
  const bool answered = fast.fast_row(prefix, fast_row.data());
  if (answered) {
    ++tally.fast;
    if (fast_row != exact_row) ++tally.differ_from_exact;
    const auto independent = independent_head(p.head, w, s);
    for (Eigen::Index c = 0; c < n_v; ++c) {
      EXPECT_LE(std::fabs(fast_row[c] - independent.out(last, c)), fast.margin())
          << what << " at " << p.spell(s) << ", component " << c;
    }
  } else {
    ++tally.declined;
  }
  if (!answered || exact_after_fast) {
    fast.exact_last(prefix, again.data());
    expect_run_heads_bits(again, "exact_last");
  }
}

TEST(PrefixHead, FastRowsStayWithinTheMarginOfTheIndependentHeadAlongAWalk) {
  const Problem p = loaded_or_abort(testing::previous_letter_problem(8));
  RandomHeads random(31);
  FastRowTally all;
  for (int trial = 0; trial < 10; ++trial) {
    const HeadWeights w = trial == 0 ? p.reference : random.head(p, trial);
    PrefixHead fast = tables_for(p, w), exact = tables_for(p, w);
    FastRowTally tally;
    walk_prefixes(p.representatives(), p.strings.max_length, [&](std::span<const int> prefix) {
      // At the leaves exact_last follows fast_row too: no child reads their sums.
      const bool leaf = static_cast<int>(prefix.size()) == p.strings.max_length;
      check_row(p, w, fast, exact, prefix, leaf, tally, "trial " + std::to_string(trial));
      return true;
    });
    // The reference's scores depend on positions alone: its rows are all fast.
    if (trial == 0) {
      EXPECT_EQ(tally.declined, 0);
    }
    all.fast += tally.fast;
    all.declined += tally.declined;
    all.differ_from_exact += tally.differ_from_exact;
  }
  // Both paths are taken, and the fast rows are not the exact ones: the margin is needed.
  EXPECT_GT(all.fast, 1000);
  EXPECT_GT(all.declined, 0);
  EXPECT_GT(all.differ_from_exact, 0);
}

TEST(PrefixHead, FastRowsFollowStringsShownEachOnTheirOwn) {
  const Problem p = loaded_or_abort(testing::previous_letter_problem(12));
  RandomHeads random(7);
  SplitMix64 pick(5);
  for (int trial = 0; trial < 6; ++trial) {
    const HeadWeights w = trial == 0 ? p.reference : random.head(p, trial);
    PrefixHead fast = tables_for(p, w), exact = tables_for(p, w);
    FastRowTally tally;
    for (int n = 0; n < 40; ++n) {
      TokenString s(1 + pick.next() % 12);
      for (int& t : s) t = p.representatives()[pick.next() % p.representatives().size()];
      for (std::size_t i = 1; i <= s.size(); ++i) {
        check_row(p, w, fast, exact, std::span<const int>(s).first(i), n % 2 == 0, tally,
                  "trial " + std::to_string(trial));
      }
    }
    EXPECT_GT(tally.fast + tally.declined, 0);
  }
}

TEST(PrefixHead, FastRowDeclinesWhereEveryScoreIsFarBelowTheBestItsQueryCouldMeet) {
  // The query reads the vowel feature, the key the consonant feature, by 1000: a query meets
  // a score of 1000 only where a consonant is before it, so over vowels alone its row's
  // maximum is 1000 below the fixed one.
  const Problem p = loaded_or_abort(testing::previous_letter_problem(4));
  const HeadWeights w{rows({{1000, 0, 0, 0}}), rows({{0, 1, 0, 0}}), p.reference.W_V};
  PrefixHead head = tables_for(p, w);
  const TokenString vowels = testing::tokens_of(p, "aaa");
  std::vector<double> out(p.n_v);
  for (std::size_t i = 1; i <= vowels.size(); ++i) {
    EXPECT_FALSE(head.fast_row(std::span<const int>(vowels).first(i), out.data())) << i;
    head.exact_last(std::span<const int>(vowels).first(i), out.data());
  }
  const TokenString after_consonant = testing::tokens_of(p, "ba");
  EXPECT_TRUE(head.fast_row(std::span<const int>(after_consonant).first(1), out.data()));
}

TEST(PrefixHead, RowsOnTheToleranceAreJudgedAsGradingEachStringJudgesThem) {
  // The tolerance is the reference's worst error as run_head gives it, so its worst rows sit
  // on it: a fast row a bit off would fail one wrongly (the load, which proves the reference,
  // would then refuse the problem), unless rows that close are computed again exactly.
  nlohmann::json j = testing::previous_letter_problem(7);
  const Problem loose = loaded_or_abort(j);
  const auto consonant = [&](int token) {
    return std::string_view("aeiou").find(static_cast<char>(loose.alphabet_chars[token])) ==
           std::string_view::npos;
  };
  double worst = 0;
  walk_prefixes(loose.representatives(), 7, [&](std::span<const int> prefix) {
    const TokenString s(prefix.begin(), prefix.end());
    const auto i = static_cast<Eigen::Index>(s.size()) - 1;
    const double expected = consonant(s[s.size() < 2 ? 0 : s.size() - 2]) ? 1 : 0;
    const Matrix out = run_head(loose.head, loose.reference, s).output;
    worst = std::max({worst, std::fabs(out(i, 0) - expected), std::fabs(out(i, 1))});
    return true;
  });
  ASSERT_GT(worst, 0);
  j["tolerance"] = worst;
  const Problem tight = loaded_or_abort(j);
  const HeadWeights& reference = tight.reference;
  EXPECT_TRUE(grade(tight, reference, 3).passed);
  const auto scaled_query = [&](double c) {
    return HeadWeights{reference.W_q * c, reference.W_k, reference.W_V};
  };
  for (const double c : {1.0, 0.999, 1.001, 0.9}) {
    testing::expect_same_report(tight, scaled_query(c), "W_q times " + std::to_string(c));
  }
}

}  // namespace
}  // namespace headgrader

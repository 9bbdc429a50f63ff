// Problems whose rows depend on positions, graded over kind counts (grader/token_kinds.h):
// how the positions fall into classes, and that grading over them gives exactly the report
// of running every tested string on its own (grade_each_string) for W_P of every shape,
// `at` of fixed and of varying positions, `pos`, heads without the mask and rows exactly at
// the tolerance; and that a wrong partition of the positions would be caught.
#include "token_kinds.h"

#include <gtest/gtest.h>

#include <cmath>
#include <variant>

#include "count_states.h"
#include "exhaustive.h"
#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "test_support.h"

namespace headgrader {
namespace {

using testing::bundled_json;
using testing::expect_same_report;
using testing::loaded_or_abort;
using testing::RandomHeads;

// first-position over strings up to `length` (all of them tested, and 30 random ones), its
// W_P with `column(i)` as the column of position i + 1 (3 numbers: the vowel and consonant
// features and the third, which the reference's key reads).
template <typename Column>
nlohmann::json first_position_with(const std::string& id, int length, Column column) {
  nlohmann::json problem = bundled_json("first-position");
  problem["id"] = id;
  nlohmann::json W_P = nlohmann::json::array(
      {nlohmann::json::array(), nlohmann::json::array(), nlohmann::json::array()});
  for (int i = 0; i < length; ++i) {
    const std::array<double, 3> c = column(i);
    for (std::size_t f = 0; f < 3; ++f) W_P[f].push_back(c[f]);
  }
  problem["W_P"] = W_P;
  // Field by field, not `problem["strings"] = {{…}, …}`: clang 14 (the sanitizer tree's
  // compiler) never destroys the object such an assignment replaces inside a function
  // template, and LeakSanitizer reports it.
  nlohmann::json& strings = problem["strings"];
  strings["max_length"] = length;
  strings["exhaustive_length"] = length;
  strings["random"] = 30;
  strings["seed"] = 9;
  strings["examples"] = nlohmann::json::array({"eacia", "ccrs"});
  problem["reference"]["W_k"] = nlohmann::json::array({nlohmann::json::array({0, 0, 10})});
  return problem;
}

std::array<double, 3> first_only(int i) { return {0, 0, i == 0 ? 1.0 : 0.0}; }

// Position problems of every shape the issue names, each small enough to grade string by
// string in the test.
struct PositionProblems {
  // The bundled problem lengthened to 12: W_P's columns 2…12 alike.
  Problem first = loaded_or_abort(first_position_with("first-12", 12, first_only));
  // Columns 1, 2 and 3 each their own, 4…11 alike (a vowel feature that fades out).
  Problem three_distinct = loaded_or_abort(first_position_with("three-distinct", 11, [](int i) {
    return std::array<double, 3>{i < 3 ? 0.5 / (i + 1) : 0.0, 0, i == 0 ? 1.0 : 0.0};
  }));
  // `at(3, …)` with `pos`: the key marks position 3; before it, attention is even.
  Problem at_three = [] {
    nlohmann::json j = first_position_with("at-three", 10, [](int i) {
      return std::array<double, 3>{0, 0, i == 2 ? 1.0 : 0.0};
    });
    j["expected"] = "pos < 3 ? [mean(consonant), 0] : (at(3, consonant) ? [1, 0] : [0, 0])";
    return loaded_or_abort(j);
  }();
  // The previous letter, with W_P's columns all different (j and j²): nothing compresses.
  Problem previous = [] {
    nlohmann::json j = testing::previous_letter_problem(9);
    j["strings"]["random"] = 20;
    j["strings"]["seed"] = 4;
    return loaded_or_abort(j);
  }();
  // first-position without the mask: position 1 is seen from everywhere all the same.
  Problem unmasked = [] {
    nlohmann::json j = first_position_with("unmasked", 7, first_only);
    j["causal"] = false;
    return loaded_or_abort(j);
  }();

  std::vector<const Problem*> all() const {
    return {&first, &three_distinct, &at_three, &previous, &unmasked};
  }
};

const PositionProblems& position_problems() {
  static const PositionProblems problems;
  return problems;
}

TEST(TokenKinds, PositionsWithEqualColumnsShareAClassAndEachFixedPositionIsItsOwn) {
  const PositionProblems& p = position_problems();
  const auto kinds = [](const Problem& problem) {
    return TokenKinds::of(problem, problem.strings.max_length);
  };
  // first-position: position 1 (its column and `at(1, …)`), then 2…12.
  ASSERT_TRUE(kinds(p.first));
  EXPECT_EQ(kinds(p.first)->classes(), 2u);
  EXPECT_EQ(kinds(p.first)->size(), 4u);  // vowel and consonant at each
  EXPECT_TRUE(kinds(p.first)->expected_by_kinds());
  EXPECT_EQ(kinds(p.first)->class_at(1), 0u);
  EXPECT_EQ(kinds(p.first)->class_at(2), kinds(p.first)->class_at(12));
  ASSERT_TRUE(kinds(p.three_distinct));
  EXPECT_EQ(kinds(p.three_distinct)->classes(), 4u);
  // at(3, …): position 3 splits from the columns it shares.
  ASSERT_TRUE(kinds(p.at_three));
  EXPECT_EQ(kinds(p.at_three)->classes(), 2u);  // 3 alone (column and `at`); 1, 2, 4… alike
  EXPECT_EQ(kinds(p.at_three)->class_at(1), kinds(p.at_three)->class_at(4));
  EXPECT_NE(kinds(p.at_three)->class_at(3), kinds(p.at_three)->class_at(4));
  // Columns that all differ would make every prefix a state of its own: not counted.
  EXPECT_FALSE(kinds(p.previous));
  // Without the mask a row depends on the whole string.
  EXPECT_FALSE(kinds(p.unmasked));
  // Without W_P and `at`, a kind is a group.
  const Problem& anywhere = testing::bundled("consonant-anywhere");
  ASSERT_TRUE(kinds(anywhere));
  EXPECT_EQ(kinds(anywhere)->size(), anywhere.representatives().size());
}

TEST(TokenKinds, SpellingAStatePutsEachKindInItsClassAndTheLastKindLast) {
  const Problem& p = position_problems().at_three;
  const TokenKinds kinds = *TokenKinds::of(p, p.strings.max_length);
  // Depth 5: classes {1, 2, 4, 5} and {3}. Two vowels and one consonant in the first, a
  // consonant at 3, the last token a vowel at 5 (so one vowel before it).
  std::vector<int> counts(kinds.size(), 0);
  const std::size_t shared = kinds.class_at(1), own = kinds.class_at(3);
  const std::size_t vowel = static_cast<std::size_t>(p.group_of()[0]);      // 'a'
  const std::size_t consonant = static_cast<std::size_t>(p.group_of()[1]);  // 'b'
  ASSERT_LT(vowel, consonant);  // groups in order of their first token
  counts[shared * kinds.groups() + vowel] = 2;
  counts[shared * kinds.groups() + consonant] = 2;
  counts[own * kinds.groups() + consonant] = 1;
  TokenString prefix;
  std::vector<int> scratch;
  kinds.spell_state(counts.data(), kinds.kind(vowel, 5), prefix, scratch);
  ASSERT_EQ(prefix.size(), 5u);
  EXPECT_EQ(p.spell(prefix), "abbba");
}

TEST(TokenKinds, GradingOverKindsEqualsStringByStringOnEveryShapeOfPositionProblem) {
  for (const Problem* p : position_problems().all()) {
    expect_same_report(*p, p->reference, p->id + " reference");
    HeadWeights soft = p->reference;
    soft.W_k *= 0.3;
    expect_same_report(*p, soft, p->id + " soft key");
    expect_same_report(*p, HeadWeights{p->reference.W_k, p->reference.W_q, p->reference.W_V},
                       p->id + " swapped");
  }
}

TEST(TokenKinds, GradingOverKindsEqualsStringByStringOnRandomHeadsUpToTheContractsLimits) {
  // Each trial grades every string of a problem on its own, four times slower under ASan.
  constexpr int kTrials = testing::full_or_sanitized(24, 8);
  RandomHeads random(23);
  for (const Problem* p : position_problems().all()) {
    for (int trial = 0; trial < kTrials; ++trial) {
      expect_same_report(*p, random.head(*p, trial), p->id + " trial " + std::to_string(trial),
                         {std::vector<int>{0, 1, 3, 100}[trial % 4]});
    }
  }
}

TEST(TokenKinds, RowsExactlyAtTheToleranceAreJudgedAsOnTheirOwn) {
  // Even attention (W_q = W_k = 0) over "ba" gives 0.5 where `expected` is 1: exactly the
  // tolerance, which passes; "baa" gives 1/3, which fails.
  nlohmann::json j = first_position_with("even", 6, first_only);
  j["tolerance"] = 0.5;
  const Problem p = loaded_or_abort(j);
  const HeadWeights even{Matrix::Zero(1, 3), Matrix::Zero(1, 3), p.reference.W_V};
  ASSERT_TRUE(TokenKinds::of(p, p.strings.max_length));
  expect_same_report(p, even, "even attention");
  EXPECT_FALSE(grade(p, even, 0).passed);
}

// The rows at length 24 of first-position with the key c on position 1's feature: every query
// is 1, so position 1 weighs e^c / (e^c + i − 1) and each other position 1 / (e^c + i − 1).
// Component 1 errs by the count of tokens after the first whose group is not the first's,
// over e^c + i − 1. So a string fails where that count passes 0.1 (e^c + i − 1): counted here
// by dynamic programming over (length, count), with std::exp, none of the engine's paths.
std::uint64_t first_position_failures_by_formula(double c, int max_length) {
  const double e = std::exp(c);
  std::uint64_t failing = 0;
  // passing[n]: strings of the current length, first token fixed, whose every position
  // passes and with n tokens after the first of the other group.
  std::vector<std::uint64_t> passing{1};
  for (int i = 1; i <= max_length; ++i) {
    if (i > 1) {
      std::vector<std::uint64_t> next(passing.size() + 1, 0);
      for (std::size_t n = 0; n < passing.size(); ++n) {
        next[n] += passing[n];      // the same group as the first
        next[n + 1] += passing[n];  // the other group
      }
      passing = std::move(next);
    }
    std::uint64_t still = 0;
    for (std::size_t n = 0; n < passing.size(); ++n) {
      if (static_cast<double>(n) / (e + i - 1) > 0.1) passing[n] = 0;
      still += passing[n];
    }
    // Of the 2 · 2^(i−1) strings of length i, those not passing at every position.
    failing += 2 * ((std::uint64_t{1} << (i - 1)) - still);
  }
  return failing;
}

TEST(TokenKinds, FirstPositionUpToLengthTwentyFourIsGradedExactlyOverItsKinds) {
  // 33 554 430 strings over its two groups; string by string this took half a minute.
  nlohmann::json j = first_position_with("first-24", 24, first_only);
  j["strings"] = {{"max_length", 24}, {"exhaustive_length", 24}};
  const Problem p = loaded_or_abort(j);
  ASSERT_EQ(p.tested_total(), (std::uint64_t{1} << 25) - 2);
  ASSERT_NE(p.count_states(), nullptr);
  for (const double c : {10.0, 3.5, 3.0, 2.0}) {
    HeadWeights w = p.reference;
    w.W_k(0, 2) = c;
    const GradeReport report = grade(p, w, 3);
    EXPECT_EQ(report.failed, first_position_failures_by_formula(c, 24)) << "key " << c;
  }
  EXPECT_TRUE(grade(p, p.reference, 3).passed);
}

TEST(TokenKinds, AWrongPartitionOfThePositionsIsCaughtByTheComparison) {
  // The mutation check: positions 2 and 3 of three-distinct put in one class although their
  // W_P columns differ. Counting the exhaustive set's failures over those kinds disagrees
  // with grading each string on its own for some head; the right partition agrees for all.
  nlohmann::json j = first_position_with("three-distinct", 9, [](int i) {
    return std::array<double, 3>{i < 3 ? 0.5 / (i + 1) : 0.0, 0, i == 0 ? 1.0 : 0.0};
  });
  j["strings"] = {{"max_length", 9}, {"exhaustive_length", 9}};  // the exhaustive set alone
  const Problem p = loaded_or_abort(j);
  std::vector<std::size_t> wrong(9, 2);
  wrong[0] = 0;
  wrong[1] = wrong[2] = 1;
  // Heads like the reference with a vowel weight in the query, which reads the columns'
  // vowel feature (0.5, 0.25, 0.17, then 0), and keys of every strength around the edge.
  int disagreements = 0, trials = 0;
  for (const double vowel : {-8.0, -2.0, 2.0, 8.0}) {
    for (double key = 0.5; key <= 6; key += 0.5) {
      HeadWeights w = p.reference;
      w.W_q(0, 0) = vowel;
      w.W_k(0, 2) = key;
      const std::uint64_t truth = grade_each_string(p, w, 0).failed;
      FailureCollector none(0), none_either(0);
      PrefixJudge right(p, w);
      const std::optional<std::uint64_t> counted = right.count_exhaustive_failures(9, none);
      ASSERT_TRUE(counted);
      EXPECT_EQ(*counted, truth) << "vowel " << vowel << ", key " << key;
      PrefixJudge broken(p, w, TokenKinds::with_classes(p, wrong));
      const std::optional<std::uint64_t> miscounted =
          broken.count_exhaustive_failures(9, none_either);
      if (miscounted && *miscounted != truth) ++disagreements;
      ++trials;
    }
  }
  ASSERT_EQ(trials, 48);
  EXPECT_GT(disagreements, 0);
}

}  // namespace
}  // namespace headgrader

// The prefix-tree grading (grade) gives exactly the report of running every tested string
// on its own (grade_each_string): same counts, same failures in the same order, same bytes.
#include "exhaustive.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <variant>

#include "count_states.h"
#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "prefix_judge.h"
#include "prefix_walk.h"
#include "test_support.h"

namespace headgrader {
namespace {

using testing::bundled;
using testing::expect_same_report;
using testing::RandomHeads;
using testing::rows;

// The exhaustive strings, shortest first and in alphabet order, that fail under the
// independent head (whole-matrix products, std::exp): none of the engine's paths.
std::vector<TokenString> exhaustive_failing_by_brute_force(const Problem& p, const HeadWeights& w) {
  std::vector<TokenString> failing;
  for (int length = 1; length <= p.strings.exhaustive_length; ++length) {
    TokenString s(static_cast<std::size_t>(length), 0);
    std::vector<std::size_t> digit(s.size(), 0);
    while (true) {
      for (std::size_t k = 0; k < s.size(); ++k) s[k] = p.representatives()[digit[k]];
      const Matrix error = testing::independent_head(p.head, w, s).out - expected_output(p, s);
      if (!(error.cwiseAbs().maxCoeff() <= p.tolerance)) failing.push_back(s);
      std::size_t k = s.size();
      while (k > 0 && ++digit[k - 1] == p.representatives().size()) digit[--k] = 0;
      if (k == 0) break;
    }
  }
  return failing;
}

Problem load_test_problem(const std::string& name) {
  std::ifstream in(std::string(HEADGRADER_SOURCE_DIR "/tests/data/exhaustive/") + name);
  std::stringstream text;
  text << in.rdbuf();
  auto loaded = load_problem_text(text.str(), name);
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    for (const auto& d : *defects) ADD_FAILURE() << d.to_string();
    std::abort();
  }
  return std::get<Problem>(std::move(loaded));
}

TEST(ExhaustiveGrading, EqualsStringByStringOnTheBundledProblemsReferencesAndKnownWrongHeads) {
  for (const char* id : {"consonant-anywhere", "consonant-proportion", "first-position"}) {
    const Problem& p = bundled(id);
    expect_same_report(p, p.reference, std::string(id) + " reference");
    HeadWeights soft = p.reference;
    soft.W_k *= 0.4;
    expect_same_report(p, soft, std::string(id) + " soft key");
    expect_same_report(p, HeadWeights{p.reference.W_k, p.reference.W_q, p.reference.W_V},
                       std::string(id) + " swapped");
  }
}

TEST(ExhaustiveGrading, EqualsStringByStringOnRandomHeadsOfEverySharpness) {
  RandomHeads random(11);
  const Problem three = load_test_problem("three-letters.json");
  const Problem five = load_test_problem("five-letters.json");
  const Problem reads_positions = load_test_problem("own-class-by-position.json");
  for (const Problem* p : {&bundled("consonant-anywhere"), &bundled("consonant-proportion"),
                           &bundled("first-position"), &three, &five, &reads_positions}) {
    for (int trial = 0; trial < 40; ++trial) {
      expect_same_report(*p, random.head(*p, trial), p->id + " trial " + std::to_string(trial),
                         {std::vector<int>{0, 1, 3, 100}[trial % 4]});
    }
  }
}

// consonant-anywhere with another `expected` whose reference spreads attention evenly
// (W_q = W_k = 0) over the given rows of W_V; `W_E` and `classes` as given when not null.
Problem consonant_variant(const std::string& expected, const Json& W_V, const Json& W_E = nullptr,
                          const Json& classes = nullptr) {
  std::ifstream in(HEADGRADER_SOURCE_DIR "/problems/consonant-anywhere.json");
  Json json = Json::parse(in);
  json["expected"] = expected;
  if (!W_E.is_null()) json["W_E"] = W_E;
  if (!classes.is_null()) json["classes"] = classes;
  const Json zeros = Json::array({Json(std::vector<int>(json["W_E"].size(), 0))});
  json["reference"] = {{"W_q", zeros}, {"W_k", zeros}, {"W_V", W_V}};
  auto loaded = load_problem_text(json.dump(), "consonant-anywhere.json");
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    for (const auto& d : *defects) ADD_FAILURE() << d.to_string();
    std::abort();
  }
  return std::get<Problem>(std::move(loaded));
}

TEST(ExhaustiveGrading, EqualsStringByStringForEveryShapeOfCountStateRow) {
  // Rows over count states are compiled for 1 to 4 groups and 1 to 4 components of v, and
  // read the sizes at run time beyond. The bundled and test problems have 2 or 3 components
  // over 2, 3 or 5 groups; these add 1, 4 and 5 components over 2 groups, 2 components over
  // 4 groups (a third feature sets a and b apart from the other vowels and consonants), and
  // 1 component over 1 group (every letter embedded alike and no class to tell them apart:
  // the output is the same whatever the attention, so that one checks the dispatch).
  const Json v = Json::array({1, 0}),
             c = Json::array({0, 1});  // rows of W_V reading the vowel or consonant feature
  std::vector<Problem> problems;
  problems.push_back(consonant_variant("mean(consonant)", Json::array({c})));
  problems.push_back(consonant_variant(
      "[mean(vowel), mean(consonant), mean(vowel), mean(consonant)]", Json::array({v, c, v, c})));
  problems.push_back(
      consonant_variant("[mean(vowel), mean(consonant), mean(vowel), mean(consonant), mean(vowel)]",
                        Json::array({v, c, v, c, v})));
  Json four_groups =
      Json::parse(std::ifstream(HEADGRADER_SOURCE_DIR "/problems/consonant-anywhere.json"))["W_E"];
  four_groups.push_back(Json(std::vector<int>(26, 0)));
  four_groups[2][0] = four_groups[2][1] = 1;  // a and b
  problems.push_back(consonant_variant(
      "[mean(vowel), mean(consonant)]",
      Json::array({Json::array({1, 0, 0}), Json::array({0, 1, 0})}), four_groups));
  problems.push_back(consonant_variant("1", Json::array({Json::array({1})}),
                                       Json::array({Json(std::vector<int>(26, 1))}),
                                       Json::object()));
  const std::vector<std::pair<std::size_t, std::size_t>> shapes = {
      {2, 1}, {2, 4}, {2, 5}, {4, 2}, {1, 1}};
  // 20 random heads per shape; 5 under AddressSanitizer, where the string-by-string grading
  // each is compared with takes twelve times as long (144 s of the sanitized suite's 705 s):
  // the Release run keeps all 20, and 5 still take every row function through ASan.
  constexpr int kTrials = testing::full_or_sanitized(20, 5);
  RandomHeads random(31);
  for (std::size_t k = 0; k < problems.size(); ++k) {
    const Problem& p = problems[k];
    ASSERT_EQ(std::make_pair(p.representatives().size(), p.n_v), shapes[k]);
    ASSERT_NE(p.count_states(), nullptr);
    for (int trial = 0; trial < kTrials; ++trial) {
      expect_same_report(p, random.head(p, trial),
                         std::to_string(p.representatives().size()) + " groups, " +
                             std::to_string(p.n_v) + " components, trial " + std::to_string(trial));
    }
  }
}

// Random heads per problem in the two tests below that check the grade against every string
// run by the independent head: 30; 10 under AddressSanitizer, where they took 50 s of the
// sanitized suite (2026-12-07). Ten trials still meet every range of RandomHeads (trial % 5)
// with both value matrices (trial % 2), and in the first test every max_failures (trial % 4).
constexpr int kBruteForceTrials = testing::full_or_sanitized(30, 10);

TEST(ExhaustiveGrading, CountsOverStatesMatchBruteForceWithAnIndependentHead) {
  RandomHeads random(23);
  // The exhaustive set alone.
  const Problem three = testing::exhaustive_set_alone(load_test_problem("three-letters.json"));
  // Too many groups to cache e^x.
  const Problem five = testing::exhaustive_set_alone(load_test_problem("five-letters.json"));
  const Problem anywhere = testing::exhaustive_set_alone(bundled("consonant-anywhere"));
  const Problem proportion = testing::exhaustive_set_alone(bundled("consonant-proportion"));
  for (const Problem* p : {&anywhere, &proportion, &three, &five}) {
    ASSERT_NE(p->count_states(), nullptr) << p->id;
    // No count states from the derivation: the grade finds its own.
    const Problem found_as_met = testing::derive(*p, 0);
    for (int trial = 0; trial < kBruteForceTrials; ++trial) {
      const HeadWeights w = random.head(*p, trial);
      const auto failing = exhaustive_failing_by_brute_force(*p, w);
      const int max_failures = std::vector<int>{0, 1, 3, 100}[trial % 4];
      const auto report = grade(trial % 2 ? *p : found_as_met, w, max_failures);
      const std::string what = p->id + " trial " + std::to_string(trial);
      EXPECT_EQ(report.failed, failing.size()) << what;
      ASSERT_EQ(report.failures.size(),
                std::min(failing.size(), static_cast<std::size_t>(max_failures)))
          << what;
      for (std::size_t k = 0; k < report.failures.size(); ++k) {
        EXPECT_EQ(p->spell(report.failures[k].input), p->spell(failing[k])) << what;
      }
    }
  }
}

TEST(ExhaustiveGrading, ExtraStringsSharingCountStatesMatchAnIndependentHead) {
  // The examples and random strings are judged once per set of (state, last group) slots
  // they reach; each must still get the verdict of the independent head on the string.
  RandomHeads random(31);
  const Problem three = load_test_problem("three-letters.json");
  const Problem five = load_test_problem("five-letters.json");
  for (const Problem* p :
       {&bundled("consonant-anywhere"), &bundled("consonant-proportion"), &three, &five}) {
    ASSERT_NE(p->count_states(), nullptr) << p->id;
    const CountStateGraph& graph = *p->count_states();
    ASSERT_EQ(graph.extra_path.size(), p->extra_strings().size()) << p->id;
    if (p->id.starts_with("consonant")) {  // 204 strings over 2 groups: many share their slots
      EXPECT_LT(graph.path_begin.size() - 1, p->extra_strings().size() / 2) << p->id;
    }
    for (int trial = 0; trial < kBruteForceTrials; ++trial) {
      const HeadWeights w = random.head(*p, trial);
      std::vector<TokenString> failing = exhaustive_failing_by_brute_force(*p, w);
      for (const TokenString& s : p->extra_strings()) {
        const Matrix error = testing::independent_head(p->head, w, s).out - expected_output(*p, s);
        if (!(error.cwiseAbs().maxCoeff() <= p->tolerance)) failing.push_back(s);
      }
      // The report lists failures shortest first, then in alphabet order (API.md §5).
      std::sort(failing.begin(), failing.end(), [](const TokenString& a, const TokenString& b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b;
      });
      const auto report = grade(*p, w, 1000);
      const std::string what = p->id + " trial " + std::to_string(trial);
      EXPECT_EQ(report.failed, failing.size()) << what;
      ASSERT_EQ(report.failures.size(), std::min<std::size_t>(failing.size(), 1000)) << what;
      for (std::size_t k = 0; k < report.failures.size(); ++k) {
        EXPECT_EQ(p->spell(report.failures[k].input), p->spell(failing[k])) << what;
      }
    }
  }
}

TEST(ExhaustiveGrading, CountsOverStatesOnlyWhenVerdictsDependOnCountsAlone) {
  const auto counted = [](const Problem& p) {
    PrefixJudge judge(p, p.reference);
    FailureCollector failures(3);
    return judge.count_exhaustive_failures(p.strings.exhaustive_length, failures);
  };
  // Rows and `expected` are functions of the kind counts and the last kind: groups, and for
  // first-position (W_P's columns 2…8 alike, `at(1, …)`) groups at position 1 or after.
  EXPECT_EQ(counted(bundled("consonant-anywhere")), 0u);
  EXPECT_EQ(counted(bundled("consonant-proportion")), 0u);
  EXPECT_EQ(counted(bundled("first-position")), 0u);
  // `at(pos, …)` makes `expected` depend on every position; W_P columns that all differ make
  // every position a kind of its own, so counting would not pay.
  const Problem distinct = std::get<Problem>(
      load_problem_text(testing::prefix_by_prefix_problem("distinct", 8).dump(), "distinct.json"));
  EXPECT_EQ(counted(load_test_problem("own-class-by-position.json")), std::nullopt);
  EXPECT_EQ(counted(distinct), std::nullopt);
  // The load keeps the count states only where they apply: (v, c) with v + c ≤ 8 is 45;
  // first-position's is the group at position 1 and the counts after it, 1 + 2 × (1 + … + 8).
  ASSERT_NE(bundled("consonant-anywhere").count_states(), nullptr);
  EXPECT_EQ(bundled("consonant-anywhere").count_states()->size(), 45u);
  ASSERT_NE(bundled("first-position").count_states(), nullptr);
  EXPECT_EQ(bundled("first-position").count_states()->size(), 73u);
  EXPECT_EQ(load_test_problem("own-class-by-position.json").count_states(), nullptr);
  EXPECT_EQ(distinct.count_states(), nullptr);
}

TEST(ExhaustiveGrading, LengthTwentyFourOverTwoGroupsIsCountedExactly) {
  // 33 554 430 strings under a soft key: q = 1 for every token, k = 0 for a vowel and 1 for
  // a consonant. At a position with v vowels and c ≥ 1 consonants so far the output is
  // [v, c·e] / (v + c·e) against [0, 1]: both components are off by v / (v + c·e), so the
  // position passes iff v ≤ c·e / 9 (no pair of counts up to 24 is near a tie). Count the
  // strings whose every position passes by that inequality, over (v, c).
  ProblemSpec spec = bundled("consonant-anywhere");
  ASSERT_EQ(spec.head.scale, 1.0);
  spec.strings.max_length = spec.strings.exhaustive_length = 24;
  spec.strings.examples.clear();
  spec.examples.clear();
  spec.strings.random = 0;
  spec.reference.W_k = rows({{0, 8}});  // the bundled key fails past 8 vowels; this one passes
  const Problem p = testing::derive(spec);
  ASSERT_EQ(p.exhaustive_total(), exhaustive_count(2, 24));
  const HeadWeights soft{rows({{1, 1}}), rows({{0, 1}}), rows({{1, 0}, {0, 1}})};
  const auto position_passes = [](int v, int c) { return c == 0 || 9.0 * v <= c * std::exp(1.0); };
  // ways[v][c]: strings with v vowels and c consonants passing at every position.
  std::vector<std::vector<std::uint64_t>> ways(25, std::vector<std::uint64_t>(25, 0));
  ways[0][0] = 1;
  std::uint64_t passing = 0;
  for (int length = 1; length <= 24; ++length) {
    for (int c = 0; c <= length; ++c) {
      const int v = length - c;
      std::uint64_t n = 0;
      if (v > 0) n += ways[v - 1][c];  // a vowel last
      if (c > 0) n += ways[v][c - 1];  // a consonant last
      ways[v][c] = position_passes(v, c) ? n : 0;
      passing += ways[v][c];
    }
  }
  const auto report = grade(p, soft, 3);
  EXPECT_EQ(report.total, 33554430u);
  EXPECT_EQ(report.passed_count, passing);
  EXPECT_EQ(report.failed, 33554430u - passing);
  // The first three in report order: v = 1, c = 1 fails at position 2, v = 2, c = 1 at 3.
  std::vector<std::string> first;
  for (const auto& f : report.failures) first.push_back(p.spell(f.input));
  EXPECT_EQ(first, (std::vector<std::string>{"ab", "ba", "aab"}));
}

TEST(ExhaustiveGrading, RowsExactlyAtTheToleranceAreJudgedAsOnTheirOwn) {
  // Make the tolerance equal, to the last bit, to the error run_head gives on some string:
  // the fast path's reordered sums may land a hair either side; the result must not.
  const HeadWeights soft{rows({{1, 1}}), rows({{0, 2}}), rows({{1, 0}, {0, 1}})};
  for (const char* text : {"ab", "aab", "abab", "aaaab", "abbbbbb"}) {
    Problem p = bundled("consonant-anywhere");
    const auto s = testing::tokens_of(p, text);
    const auto out = run_head(p.head, soft, s).output;
    p.tolerance = (out - expected_output(p, s)).cwiseAbs().maxCoeff();
    const auto fast = grade(p, soft, 100);
    EXPECT_EQ(report_json(p, fast), report_json(p, grade_each_string(p, soft, 100))) << text;
    EXPECT_TRUE(std::none_of(fast.failures.begin(), fast.failures.end(),
                             [&](const Failure& f) { return f.input == s; }))
        << text << " is exactly at the tolerance and must pass";
  }
}

TEST(ExhaustiveGrading, AHeadOverTheToleranceByAHairAtItsWorstRowFailsThereAlone) {
  // A head whose rows all pass clearly but its worst one, which misses the tolerance by the
  // last bit: a correct submission's shortcut (every count state passes) must not be taken,
  // and the strings through that row fail exactly as on their own.
  Problem p = bundled("consonant-anywhere");
  const HeadWeights soft{rows({{1, 1}}), rows({{0, 2}}), rows({{1, 0}, {0, 1}})};
  double worst = 0;
  TokenString worst_string;
  walk_prefixes(p.representatives(), p.strings.exhaustive_length, [&](std::span<const int> s) {
    const TokenString string(s.begin(), s.end());
    const double error =
        (run_head(p.head, soft, string).output - expected_output(p, string)).cwiseAbs().maxCoeff();
    if (error > worst) worst = error, worst_string = string;
    return true;
  });
  p.tolerance = worst;  // every row passes, the worst exactly at the tolerance
  EXPECT_TRUE(grade(p, soft, 3).passed);
  p.tolerance = std::nextafter(worst, 0.0);
  const auto report = grade(p, soft, 100);
  EXPECT_EQ(report_json(p, report), report_json(p, grade_each_string(p, soft, 100)));
  EXPECT_FALSE(report.passed);
  EXPECT_TRUE(std::any_of(report.failures.begin(), report.failures.end(),
                          [&](const Failure& f) { return f.input == worst_string; }))
      << p.spell(worst_string) << " is over the tolerance by one bit and must fail";
}

TEST(ExhaustiveGrading, OnlyTheRowsOfTestedPrefixesDecideACorrectHead) {
  // Random strings up to length 12 beside an exhaustive set of length 3: the count states go
  // to depth 12, but a tested prefix is in only some of them. The softer a key, the fewer
  // vowels before a consonant it can outweigh; each grade must equal running every string on
  // its own, whether the rows no tested string reaches pass or not, and whether only the
  // examples' and random strings' rows past length 3 fail ("aaaaab": five vowels).
  std::ifstream in(HEADGRADER_SOURCE_DIR "/problems/consonant-anywhere.json");
  auto json = nlohmann::ordered_json::parse(in);
  json["strings"] = {{"max_length", 12},
                     {"exhaustive_length", 3},
                     {"random", 30},
                     {"seed", 5},
                     {"examples", {"aaaaab", "aeri"}}};
  auto loaded = load_problem_text(json.dump(), "consonant-anywhere.json");
  ASSERT_TRUE(std::holds_alternative<Problem>(loaded));
  const Problem& p = std::get<Problem>(loaded);
  ASSERT_NE(p.count_states(), nullptr);
  const CountStateGraph& graph = *p.count_states();
  EXPECT_EQ(graph.exhaustive_states, 10u);  // (v, c) with v + c ≤ 3
  EXPECT_FALSE(graph.extra_only_slots.empty());

  const auto fails = [&](const HeadWeights& w, const std::string& text) {
    const TokenString s = testing::tokens_of(p, text);
    return !((run_head(p.head, w, s).output - expected_output(p, s)).cwiseAbs().maxCoeff() <=
             p.tolerance);
  };
  bool passed_with_untested_rows_failing = false;  // eleven vowels, then a consonant
  bool failed_beyond_the_exhaustive_set_only = false;
  for (double key = 1; key <= 8; key += 0.25) {
    const HeadWeights soft{rows({{1, 1}}), rows({{0, key}}), rows({{1, 0}, {0, 1}})};
    const auto report = grade(p, soft, 100);
    EXPECT_EQ(report_json(p, report), report_json(p, grade_each_string(p, soft, 100)))
        << "key " << key;
    if (report.passed && fails(soft, "aaaaaaaaaaab")) passed_with_untested_rows_failing = true;
    if (!report.passed && std::all_of(report.failures.begin(), report.failures.end(),
                                      [](const Failure& f) { return f.input.size() > 3; })) {
      failed_beyond_the_exhaustive_set_only = true;
    }
  }
  EXPECT_TRUE(passed_with_untested_rows_failing);
  EXPECT_TRUE(failed_beyond_the_exhaustive_set_only);
}

TEST(ExhaustiveGrading, AFailingPrefixFailsItsWholeSubtree) {
  // The wrong V fails at position 1 of every string: all 510 exhaustive strings fail.
  const Problem p = testing::exhaustive_set_alone(bundled("consonant-anywhere"));
  const HeadWeights wrong_V{rows({{1, 1}}), rows({{0, 5}}), rows({{0, 1}, {1, 0}})};
  const auto report = grade(p, wrong_V, 5);
  EXPECT_EQ(report.failed, report.total);
  std::vector<std::string> first;
  for (const auto& f : report.failures) first.push_back(p.spell(f.input));
  EXPECT_EQ(first, (std::vector<std::string>{"a", "b", "aa", "ab", "ba"}));
}

}  // namespace
}  // namespace headgrader

// The `expected` language (API.md §3): values on the handout's strings, the forms,
// precedence, the run-time fault of a division by zero, and what a compiled expression
// keeps. Its syntax errors are in expected_syntax_test.cc.
#include "headgrader/expected.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "expected_support.h"

namespace headgrader {
namespace {

using testing::Evaluation;
using testing::letters;
using testing::Outputs;
using testing::outputs;
using testing::run;
using testing::tokens_of;
using testing::value;

// --- The three problems of the handout ------------------------------------------------------

TEST(ExpectedLanguage, AnyIsOneOnceAConsonantHasOccurred) {
  EXPECT_EQ(outputs("any(consonant) ? [0, 1] : [1, 0]", "aeri"),
            (Outputs{{1, 0}, {1, 0}, {0, 1}, {0, 1}}));
}

TEST(ExpectedLanguage, MeanIsTheProportionOfThePrefix) {
  EXPECT_EQ(
      outputs("[mean(vowel), mean(consonant)]", "abcce"),
      (Outputs{
          {1, 0}, {1.0 / 2, 1.0 / 2}, {1.0 / 3, 2.0 / 3}, {1.0 / 4, 3.0 / 4}, {2.0 / 5, 3.0 / 5}}));
}

TEST(ExpectedLanguage, AtOneLooksAtTheFirstToken) {
  const std::string first_position = "at(1, consonant) ? [1, 0] : [0, 0]";
  EXPECT_EQ(outputs(first_position, "cbcce"), Outputs(5, {1, 0}));
  EXPECT_EQ(outputs(first_position, "eacia"), Outputs(5, {0, 0}));
}

TEST(ExpectedLanguage, FixedPositionsAreThePositionsAtReadsWhenEachIsAConstant) {
  const auto fixed = [](std::string_view expression) {
    auto parsed = parse_expected(expression, letters());
    EXPECT_TRUE(std::holds_alternative<Expected>(parsed)) << expression;
    return std::get<Expected>(parsed).fixed_positions();
  };
  using Positions = std::optional<std::vector<int>>;
  EXPECT_EQ(fixed("any(consonant) ? [0, 1] : [1, 0]"), Positions(std::vector<int>{}));
  EXPECT_EQ(fixed("at(1, consonant) ? [1, 0] : [0, 0]"), Positions(std::vector<int>{1}));
  // Arithmetic on constants is a constant; each position once, ascending.
  EXPECT_EQ(fixed("at(4 - 1, vowel) + at(2 * 1, vowel) + at(3, vowel) + at(6 / 3, vowel)"),
            Positions(std::vector<int>{2, 3}));
  // A constant condition picks its branch; a varying one is constant only for equal branches.
  EXPECT_EQ(fixed("at(1 < 2 ? 5 : pos, vowel)"), Positions(std::vector<int>{5}));
  EXPECT_EQ(fixed("at(is(vowel) ? 2 : 2, vowel)"), Positions(std::vector<int>{2}));
  EXPECT_EQ(fixed("at(is(vowel) ? 2 : 3, vowel)"), std::nullopt);
  // A k that is not a whole number ≥ 1 reads no token: no position.
  EXPECT_EQ(fixed("at(0, vowel) + at(1.5, vowel) + at(-2, vowel)"), Positions(std::vector<int>{}));
  // Positions that vary with the prefix: pos, counts, classes.
  EXPECT_EQ(fixed("at(pos - 1, consonant)"), std::nullopt);
  EXPECT_EQ(fixed("at(1 + count(vowel), consonant)"), std::nullopt);
  EXPECT_EQ(fixed("at(1, vowel) + at(pos, vowel)"), std::nullopt);
  // Whatever the fold says, evaluation agrees: at(2*1) reads position 2 on every prefix.
  EXPECT_EQ(value("at(2 * 1, consonant)", "ab"), value("at(2, consonant)", "ab"));
}

// --- Forms ------------------------------------------------------------------------------------

TEST(ExpectedLanguage, ClassFormsReadThePrefix) {
  EXPECT_EQ(outputs("[is(vowel), all(vowel), count(vowel), pos]", "aeb"),
            (Outputs{{1, 1, 1, 1}, {1, 1, 2, 2}, {0, 0, 2, 3}}));
}

TEST(ExpectedLanguage, AtIsOneOnlyForAWholePositionInThePrefix) {
  EXPECT_EQ(value("at(2, consonant)", "abc"), 1);
  EXPECT_EQ(value("at(3, consonant)", "abc"), 1);
  EXPECT_EQ(value("at(1, consonant)", "abc"), 0);
  EXPECT_EQ(value("at(pos, vowel) == is(vowel)", "abe"), 1);
  EXPECT_EQ(value("at(4, consonant)", "abc"), 0);  // beyond the prefix
  EXPECT_EQ(value("at(0, consonant)", "bbb"), 0);
  EXPECT_EQ(value("at(-1, consonant)", "bbb"), 0);
  EXPECT_EQ(value("at(1.5, consonant)", "bbb"), 0);
  EXPECT_EQ(value("at(2.0, consonant)", "bbb"), 1);
  EXPECT_EQ(value("at(1e300, consonant)", "bbb"), 0);
  EXPECT_EQ(value("at(1e308 * 10, consonant)", "bbb"), 0);               // +inf
  EXPECT_EQ(value("at(1e308 * 10 - 1e308 * 10, consonant)", "bbb"), 0);  // NaN
}

TEST(ExpectedLanguage, ScalarIsAVectorOfOne) {
  auto parsed = parse_expected("pos", letters());
  ASSERT_TRUE(std::holds_alternative<Expected>(parsed));
  EXPECT_EQ(std::get<Expected>(parsed).output_size(), 1u);
  EXPECT_EQ(outputs("pos", "ab"), (Outputs{{1}, {2}}));
}

TEST(ExpectedLanguage, OutputSizeIsKnownAfterParsing) {
  auto parsed = parse_expected("pos > 1 ? [1, 2, 3] : [4, 5, 6]", letters());
  ASSERT_TRUE(std::holds_alternative<Expected>(parsed));
  EXPECT_EQ(std::get<Expected>(parsed).output_size(), 3u);
}

TEST(ExpectedLanguage, NamedClassesAreSortedAndListedOnce) {
  auto parsed = parse_expected("[is(vowel), at(1, consonant) + count(vowel)]", letters());
  ASSERT_TRUE(std::holds_alternative<Expected>(parsed));
  EXPECT_EQ(std::get<Expected>(parsed).named_classes(), (std::vector<int>{0, 1}));
  auto none = parse_expected("pos", letters());
  EXPECT_TRUE(std::get<Expected>(none).named_classes().empty());
}

TEST(ExpectedLanguage, NumbersTakeDecimalsAndExponents) {
  EXPECT_EQ(value("1.5e2"), 150);
  EXPECT_EQ(value("25E-1"), 2.5);
  EXPECT_EQ(value("1e+1"), 10);
  EXPECT_EQ(value("007"), 7);
  EXPECT_EQ(value("1e-400"), 0);  // underflow is zero, not an error
}

TEST(ExpectedLanguage, WhitespaceMayBeSpacesTabsAndNewlines) {
  EXPECT_EQ(outputs("any(consonant)\n\t? [0,1]\n\t: [1,0]", "ab"), (Outputs{{1, 0}, {0, 1}}));
  EXPECT_EQ(value("any ( vowel )"), 1);
}

// --- Operators --------------------------------------------------------------------------------

TEST(ExpectedLanguage, ProductBindsTighterThanSumAndSumTighterThanComparison) {
  EXPECT_EQ(value("1 + 2 * 3 == 7"), 1);
  EXPECT_EQ(value("(1 + 2) * 3"), 9);
  EXPECT_EQ(value("10 - 4 - 3"), 3);  // left to right
  EXPECT_EQ(value("12 / 2 / 3"), 2);
}

TEST(ExpectedLanguage, NotBindsLooserThanComparisonAndTighterThanAnd) {
  EXPECT_EQ(value("not 1 == 0"), 1);   // not (1 == 0)
  EXPECT_EQ(value("not 0 and 0"), 0);  // (not 0) and 0
  EXPECT_EQ(value("not not 5"), 1);
  EXPECT_EQ(value("1 or 0 and 0"), 1);  // 1 or (0 and 0)
}

TEST(ExpectedLanguage, UnaryMinusBindsTightest) {
  EXPECT_EQ(value("-2 * 3"), -6);
  EXPECT_EQ(value("- -2"), 2);
  EXPECT_EQ(value("2 - -1"), 3);
  EXPECT_EQ(value("-pos", "abc"), -3);
  EXPECT_EQ(value("-1 < 0"), 1);
}

TEST(ExpectedLanguage, ComparisonsAndLogicYieldOneOrZero) {
  EXPECT_EQ(outputs("[3 < 4, 3 <= 3, 3 > 4, 4 >= 5, 2 == 2, 2 != 2]", "a"),
            (Outputs{{1, 1, 0, 0, 1, 0}}));
  EXPECT_EQ(outputs("[2 and 3, 0 and 3, 0 or -5, 0 or 0, not 0.5]", "a"),
            (Outputs{{1, 0, 1, 0, 0}}));
}

TEST(ExpectedLanguage, ConditionalTakesAnyNonZeroAsTrue) {
  EXPECT_EQ(value("0.5 ? 1 : 2"), 1);
  EXPECT_EQ(value("-1 ? 1 : 2"), 1);
  EXPECT_EQ(value("0 ? 1 : 2"), 2);
}

TEST(ExpectedLanguage, ConditionalNestsToTheRight) {
  EXPECT_EQ(outputs("pos == 1 ? 10 : pos == 2 ? 20 : 30", "aaa"), (Outputs{{10}, {20}, {30}}));
  EXPECT_EQ(outputs("pos > 1 ? pos > 2 ? [3, 3] : [2, 2] : [1, 1]", "aaa"),
            (Outputs{{1, 1}, {2, 2}, {3, 3}}));
}

// --- Division by zero -------------------------------------------------------------------------

TEST(ExpectedLanguage, DivisionByZeroFaultsAtTheSlash) {
  const Evaluation r = run("pos / (pos - 2)", "aaa");
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->column, 4u);
  EXPECT_EQ(r.outputs, (Outputs{{-1}}));  // position 2 faults
  EXPECT_TRUE(run("0 / 0", "a").fault);
  EXPECT_TRUE(run("1 / -0", "a").fault);
}

TEST(ExpectedLanguage, DivisionByZeroInABranchNotTakenStillFaults) {
  const Evaluation r = run("1 ? [1, 0] : [1 / 0, 0]", "a");
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->column, 16u);
  EXPECT_TRUE(run("0 and 1 / 0", "a").fault);
  EXPECT_TRUE(run("1 or 1 / 0", "a").fault);
}

TEST(ExpectedLanguage, EvaluationLeavesOutputUnchangedOnFault) {
  auto parsed = parse_expected("[1, 1 / 0]", letters());
  const Expected& expected = std::get<Expected>(parsed);
  std::vector<double> out = {7, 7};
  const std::vector<int> tokens = {0};
  const std::vector<int> counts = {0, 1};
  EXPECT_TRUE(expected.evaluate({tokens, counts}, out));
  EXPECT_EQ(out, (std::vector<double>{7, 7}));
}

// --- Lifetime and helpers ---------------------------------------------------------------------

TEST(ExpectedLanguage, ExpectedOutlivesTheClassTable) {
  auto table = std::make_unique<ClassTable>(letters());
  auto parsed = parse_expected("is(vowel)", *table);
  table.reset();
  Expected expected = std::move(std::get<Expected>(parsed));
  const std::vector<int> tokens = {4};  // e
  const std::vector<int> counts = {0, 1};
  std::vector<double> out(1);
  EXPECT_FALSE(expected.evaluate({tokens, counts}, out));
  EXPECT_EQ(out[0], 1);
}

TEST(ExpectedLanguage, CountClassesCountsThePrefix) {
  std::vector<int> counts(2, -1);
  count_classes(letters(), tokens_of("abcce"), counts);
  EXPECT_EQ(counts, (std::vector<int>{3, 2}));
}

TEST(ExpectedLanguage, ClassNamesAreIdentifiersThatAreNotKeywords) {
  EXPECT_TRUE(is_valid_class_name("vowel"));
  EXPECT_TRUE(is_valid_class_name("_x9"));
  EXPECT_TRUE(is_valid_class_name("Posh"));
  EXPECT_FALSE(is_valid_class_name(""));
  EXPECT_FALSE(is_valid_class_name("9x"));
  EXPECT_FALSE(is_valid_class_name("a-b"));
  EXPECT_FALSE(is_valid_class_name("pos"));
  EXPECT_FALSE(is_valid_class_name("mean"));
}

}  // namespace
}  // namespace headgrader

// The `expected` language (API.md §3): values on the handout's strings, precedence, the
// run-time fault, and every syntax error with its rendered text pinned.
#include "headgrader/expected.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "headgrader/limits.h"

namespace headgrader {
namespace {

using Outputs = std::vector<std::vector<double>>;

// The handout's alphabet a…z with its two classes, in the order of a problem file.
const ClassTable& letters() {
  static const ClassTable table = [] {
    ClassTable t;
    t.alphabet_size = 26;
    t.names = {"consonant", "vowel"};
    t.members.assign(2, std::vector<bool>(26, false));
    for (int token = 0; token < 26; ++token) {
      const bool vowel =
          std::string_view("aeiou").find(static_cast<char>('a' + token)) != std::string_view::npos;
      t.members[vowel ? 1 : 0][token] = true;
    }
    return t;
  }();
  return table;
}

std::vector<int> tokens_of(std::string_view s) {
  std::vector<int> tokens;
  for (char c : s) tokens.push_back(c - 'a');
  return tokens;
}

// Evaluates `expression` at every position of `input`; the first fault, if any, stops it.
struct Evaluation {
  Outputs outputs;
  std::optional<EvaluationFault> fault;
};
Evaluation run(std::string_view expression, std::string_view input) {
  Evaluation result;
  auto parsed = parse_expected(expression, letters());
  if (const auto* error = std::get_if<ExpectedSyntaxError>(&parsed)) {
    ADD_FAILURE() << error->render(expression);
    return result;
  }
  const Expected& expected = std::get<Expected>(parsed);
  const std::vector<int> tokens = tokens_of(input);
  std::vector<int> counts(letters().names.size());
  for (std::size_t i = 1; i <= tokens.size(); ++i) {
    const std::span<const int> prefix(tokens.data(), i);
    count_classes(letters(), prefix, counts);
    std::vector<double> out(expected.output_size());
    result.fault = expected.evaluate({prefix, counts}, out);
    if (result.fault) break;
    result.outputs.push_back(out);
  }
  return result;
}
Outputs outputs(std::string_view expression, std::string_view input) {
  Evaluation r = run(expression, input);
  EXPECT_FALSE(r.fault) << expression << " faults at column " << r.fault->column;
  return r.outputs;
}
// The value of a scalar expression at the last position of `input`.
double value(std::string_view expression, std::string_view input = "a") {
  const Outputs all = outputs(expression, input);
  if (all.empty() || all.back().size() != 1) {
    ADD_FAILURE() << expression << " gives no scalar";
    return NAN;
  }
  return all.back()[0];
}
// The rendered syntax error, or "parsed" when there is none.
std::string error(std::string_view expression) {
  auto parsed = parse_expected(expression, letters());
  const auto* e = std::get_if<ExpectedSyntaxError>(&parsed);
  return e ? e->render(expression) : "parsed";
}

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

// --- Syntax errors: column, reason and rendering -----------------------------------------

TEST(ExpectedSyntax, UnknownClassListsTheKnownClasses) {
  EXPECT_EQ(error("any(consonnant) ? [0, 1] : [1, 0]"),
            "unknown class \"consonnant\"; the known classes are consonant, vowel\n"
            "  any(consonnant) ? [0, 1] : [1, 0]\n"
            "      ^");
}

TEST(ExpectedSyntax, ErrorCarriesTheColumn) {
  auto parsed = parse_expected("any(consonnant)", letters());
  const auto& e = std::get<ExpectedSyntaxError>(parsed);
  EXPECT_EQ(e.column, 4u);
  EXPECT_EQ(e.reason, "unknown class \"consonnant\"; the known classes are consonant, vowel");
}

TEST(ExpectedSyntax, WithoutClassesTheReasonSaysSo) {
  const ClassTable none;
  auto parsed = parse_expected("is(vowel)", none);
  EXPECT_EQ(std::get<ExpectedSyntaxError>(parsed).reason,
            "unknown class \"vowel\"; the problem defines no classes");
}

TEST(ExpectedSyntax, KeywordIsNotAClass) {
  EXPECT_EQ(error("count(pos)"),
            "\"pos\" is a keyword, not a class; the known classes are consonant, vowel\n"
            "  count(pos)\n"
            "        ^");
}

TEST(ExpectedSyntax, FunctionNeedsAClassName) {
  EXPECT_EQ(error("mean(1)"),
            "expected a class name but found \"1\"; the known classes are consonant, vowel\n"
            "  mean(1)\n"
            "       ^");
  EXPECT_EQ(error("any vowel"),
            "expected \"(\" but found \"vowel\"\n"
            "  any vowel\n"
            "      ^");
  EXPECT_EQ(error("is(vowel"),
            "expected \")\" but found end of input\n"
            "  is(vowel\n"
            "          ^");
}

TEST(ExpectedSyntax, ClassIsNotANumber) {
  EXPECT_EQ(error("vowel + 1"),
            "\"vowel\" is a class, not a number; use it as in is(vowel), count(vowel) or "
            "at(k, vowel)\n"
            "  vowel + 1\n"
            "  ^");
}

TEST(ExpectedSyntax, UnknownNameSaysWhatCanStandThere) {
  EXPECT_EQ(error("foo + 1"),
            "unknown name \"foo\"; expected a number, pos, is(C), any(C), all(C), count(C), "
            "mean(C), at(k, C), ( or [\n"
            "  foo + 1\n"
            "  ^");
}

TEST(ExpectedSyntax, OperatorsNeedNumbersOnBothSides) {
  EXPECT_EQ(error("[1,0] + 1"),
            "\"+\" needs numbers on both sides; the left side is a vector of 2\n"
            "  [1,0] + 1\n"
            "        ^");
  EXPECT_EQ(error("1 * [1, 0]"),
            "\"*\" needs numbers on both sides; the right side is a vector of 2\n"
            "  1 * [1, 0]\n"
            "    ^");
  EXPECT_EQ(error("[1] and [1, 1, 1] == 1"),
            "\"==\" needs numbers on both sides; the left side is a vector of 3\n"
            "  [1] and [1, 1, 1] == 1\n"
            "                    ^");
}

TEST(ExpectedSyntax, NotAndMinusNeedANumber) {
  EXPECT_EQ(error("not [1, 0]"),
            "\"not\" needs a number; its operand is a vector of 2\n"
            "  not [1, 0]\n"
            "  ^");
  EXPECT_EQ(error("-[1, 0]"),
            "\"-\" needs a number; its operand is a vector of 2\n"
            "  -[1, 0]\n"
            "  ^");
}

TEST(ExpectedSyntax, VectorsDoNotNest) {
  EXPECT_EQ(error("[1, [0, 1]]"),
            "a vector holds numbers, not vectors; this element is a vector of 2\n"
            "  [1, [0, 1]]\n"
            "      ^");
  EXPECT_EQ(error("[]"),
            "expected an expression but found \"]\"\n"
            "  []\n"
            "   ^");
  EXPECT_EQ(error("[1 2]"),
            "expected \",\" or \"]\" but found \"2\"\n"
            "  [1 2]\n"
            "     ^");
}

TEST(ExpectedSyntax, ConditionalBranchesHaveTheSameLength) {
  EXPECT_EQ(error("any(vowel) ? [0, 1] : [1, 0, 0]"),
            "the two branches of \"?:\" must have the same length; \"[0, 1]\" has 2 and "
            "\"[1, 0, 0]\" has 3\n"
            "  any(vowel) ? [0, 1] : [1, 0, 0]\n"
            "             ^");
}

TEST(ExpectedSyntax, ConditionIsANumber) {
  EXPECT_EQ(error("[1, 0] ? 1 : 2"),
            "the condition of \"?:\" must be a number; it is a vector of 2\n"
            "  [1, 0] ? 1 : 2\n"
            "         ^");
  EXPECT_EQ(error("1 ? 2"),
            "expected \":\" but found end of input\n"
            "  1 ? 2\n"
            "       ^");
}

TEST(ExpectedSyntax, AtTakesANumberThenAClass) {
  EXPECT_EQ(error("at([1, 2], vowel)"),
            "the position k of \"at(k, C)\" must be a number; it is a vector of 2\n"
            "  at([1, 2], vowel)\n"
            "     ^");
  EXPECT_EQ(error("at(1 vowel)"),
            "expected \",\" but found \"vowel\"\n"
            "  at(1 vowel)\n"
            "       ^");
}

TEST(ExpectedSyntax, ComparisonsDoNotChain) {
  EXPECT_EQ(error("1 < 2 < 3"),
            "comparisons cannot be chained; join two comparisons with \"and\"\n"
            "  1 < 2 < 3\n"
            "        ^");
  EXPECT_EQ(value("(1 < 2) < 3"), 1);
}

TEST(ExpectedSyntax, NotCannotFollowAnArithmeticOperator) {
  EXPECT_EQ(error("1 + not 0"),
            "expected an expression but found \"not\"; put \"not ...\" in parentheses here\n"
            "  1 + not 0\n"
            "      ^");
  EXPECT_EQ(value("1 + (not 0)"), 2);
}

TEST(ExpectedSyntax, MissingEndPointsJustAfterTheLastToken) {
  EXPECT_EQ(error("(1 + 2"),
            "expected \")\" but found end of input\n"
            "  (1 + 2\n"
            "        ^");
  EXPECT_EQ(error("1 +   "),
            "expected an expression but found end of input\n"
            "  1 +   \n"
            "     ^");
}

TEST(ExpectedSyntax, EmptyExpression) {
  EXPECT_EQ(error(""), "the expression is empty\n  \n  ^");
  EXPECT_EQ(error(" \n"), "the expression is empty\n   \n  ^");
}

TEST(ExpectedSyntax, TrailingInput) {
  EXPECT_EQ(error("1 2"),
            "expected an operator or the end of the expression but found \"2\"\n"
            "  1 2\n"
            "    ^");
  EXPECT_EQ(error("(1))"),
            "expected an operator or the end of the expression but found \")\"\n"
            "  (1))\n"
            "     ^");
  EXPECT_EQ(error("and 1"),
            "expected an expression but found \"and\"\n"
            "  and 1\n"
            "  ^");
}

TEST(ExpectedSyntax, NumbersNeedDigitsAroundThePointAndInTheExponent) {
  EXPECT_EQ(error(".5"),
            "a number cannot start with \".\"; write 0.5\n"
            "  .5\n"
            "  ^");
  EXPECT_EQ(error("5."),
            "\"5.\" is not a number; write 5 or 5.0\n"
            "  5.\n"
            "   ^");
  EXPECT_EQ(error("1e+ 2"),
            "\"1e+\" is not a number; the exponent needs digits, as in 1e3\n"
            "  1e+ 2\n"
            "   ^");
  EXPECT_EQ(error("2 * 1e999"),
            "the number \"1e999\" is too large\n"
            "  2 * 1e999\n"
            "      ^");
}

TEST(ExpectedSyntax, UnexpectedCharactersGetAHint) {
  EXPECT_EQ(error("1 = 1"),
            "unexpected character \"=\"; equality is written \"==\"\n"
            "  1 = 1\n"
            "    ^");
  EXPECT_EQ(error("!1"),
            "unexpected character \"!\"; write \"!=\" to compare or \"not\" to negate\n"
            "  !1\n"
            "  ^");
  EXPECT_EQ(error("1 & 1"), "unexpected character \"&\"; write \"and\"\n  1 & 1\n    ^");
  EXPECT_EQ(error("1 | 1"), "unexpected character \"|\"; write \"or\"\n  1 | 1\n    ^");
  EXPECT_EQ(error("$"), "unexpected character \"$\"\n  $\n  ^");
  EXPECT_EQ(error("1 +\r2"), "unexpected control character (code 13)\n  1 + 2\n     ^");
  EXPECT_EQ(error("caf\xC3\xA9"),
            "unexpected character outside ASCII; the language uses only ASCII\n"
            "  caf\xC3\xA9\n"
            "     ^");
}

TEST(ExpectedSyntax, MultiLineSourceShowsTheLineWithTheError) {
  EXPECT_EQ(error("[1,\n 0,\n foo]"),
            "unknown name \"foo\"; expected a number, pos, is(C), any(C), all(C), count(C), "
            "mean(C), at(k, C), ( or [\n"
            "   foo]\n"
            "   ^");
}

TEST(ExpectedSyntax, CaretFollowsTabsAndMultiByteCharacters) {
  EXPECT_EQ(error("\t1 +"), "expected an expression but found end of input\n  \t1 +\n  \t   ^");
  ExpectedSyntaxError e{5, "reason"};
  EXPECT_EQ(e.render("\xC3\xA9\xC3\xA9 $"), "reason\n  \xC3\xA9\xC3\xA9 $\n     ^");
}

TEST(ExpectedSyntax, LongLineIsCutAroundTheColumn) {
  const std::string source = "1" + std::string(200, ' ') + "+";
  const std::string expected_line = "..." + std::string(59, ' ') + "+";  // 60 before the caret
  EXPECT_EQ(error(source), "expected an expression but found end of input\n  " + expected_line +
                               "\n  " + std::string(expected_line.size(), ' ') + "^");
}

// --- Limits and hostile input -------------------------------------------------------------

TEST(ExpectedSyntax, TooDeepNestingIsAnErrorNotACrash) {
  const std::string parens = std::string(1000, '(') + "1" + std::string(1000, ')');
  auto parsed = parse_expected(parens, letters());
  ASSERT_TRUE(std::holds_alternative<ExpectedSyntaxError>(parsed));
  const auto& e = std::get<ExpectedSyntaxError>(parsed);
  EXPECT_EQ(e.reason, "the expression is nested too deeply (more than 100 levels)");
  EXPECT_EQ(e.column, 100u);  // the 101st "("
  for (const std::string_view prefix : {"not ", "-", "1 ? 1 : "}) {
    std::string deep;
    for (int k = 0; k < 1000; ++k) deep += prefix;
    EXPECT_NE(error(deep + "1"), "parsed") << prefix;
  }
  EXPECT_EQ(value(std::string(90, '(') + "1" + std::string(90, ')')), 1);
}

TEST(ExpectedSyntax, TooLongSourceIsRefused) {
  const std::string huge(100000, '(');
  auto parsed = parse_expected(huge, letters());
  ASSERT_TRUE(std::holds_alternative<ExpectedSyntaxError>(parsed));
  const auto& e = std::get<ExpectedSyntaxError>(parsed);
  EXPECT_EQ(e.column, limits::kMaxExpectedLength);
  EXPECT_EQ(e.reason, "the expression is 100000 characters long; the limit is 4096");
  EXPECT_LT(e.render(huge).size(), 300u);
}

TEST(ExpectedSyntax, LongestAllowedVectorEvaluates) {
  // "[1,1,…,1]" with 2047 elements is 4095 characters: about the most values one expression
  // can hold.
  std::string source = "[";
  for (int k = 0; k < 2046; ++k) source += "1,";
  source += "1]";
  ASSERT_LE(source.size(), limits::kMaxExpectedLength);
  const Outputs all = outputs(source, "a");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].size(), 2047u);
}

TEST(ExpectedSyntax, RandomInputNeverCrashes) {
  const std::vector<std::string> pieces = {
      "(",  ")",   "[",   "]",    ",",     "?",   ":",     "+",         "-",  "*",
      "/",  "<",   "<=",  "==",   "!=",    ">=",  "not",   "and",       "or", "pos",
      "is", "any", "at",  "mean", "count", "all", "vowel", "consonant", "x",  "0",
      "1",  "2.5", "1e3", " ",    "\n",    ".",   "=",     "\xC3\xA9"};
  std::mt19937 random(12345);
  std::vector<double> out(limits::kMaxExpectedLength);
  const std::vector<int> tokens = tokens_of("abe");
  const std::vector<int> counts = {1, 2};
  int parsed_count = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string source;
    const std::size_t length = random() % 24;
    for (std::size_t k = 0; k < length; ++k) source += pieces[random() % pieces.size()];
    auto parsed = parse_expected(source, letters());
    if (const auto* e = std::get_if<ExpectedSyntaxError>(&parsed)) {
      EXPECT_LE(e->column, source.size()) << source;
      EXPECT_FALSE(e->reason.empty()) << source;
      (void)e->render(source);
      continue;
    }
    ++parsed_count;
    (void)std::get<Expected>(parsed).evaluate({tokens, counts}, out);
  }
  EXPECT_GT(parsed_count, 100);  // the trials reach the evaluator, not only the parser
}

}  // namespace
}  // namespace headgrader

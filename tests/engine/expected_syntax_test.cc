// The `expected` language's syntax errors (API.md §3): each with its column, its reason and
// its rendering with a caret pinned, and the limits on hostile input (nesting, length,
// random text) met with an error, never a crash.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "expected_support.h"
#include "headgrader/expected.h"
#include "headgrader/limits.h"

namespace headgrader {
namespace {

using testing::error;
using testing::letters;
using testing::Outputs;
using testing::outputs;
using testing::tokens_of;
using testing::value;

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

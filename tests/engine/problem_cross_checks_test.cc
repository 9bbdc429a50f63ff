// Problem files (API.md §2): what the fields mean together, checked once each field is
// well-formed: `expected` against the classes (its syntax errors quoted with a caret) and on
// every tested string (a division by zero named at the first string in test order), tokens
// sharing an embedding, the tested set's budget, the reference passing its own tests, and
// every defect of a file reported at once. Messages pinned verbatim.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "headgrader/problem.h"
#include "problem_loading_support.h"

namespace headgrader {
namespace {

using testing::defects_of;
using testing::tiny_problem;
using Lines = std::vector<std::string>;

// --- expected --------------------------------------------------------------------------------

TEST(ProblemLoading, ExpectedSyntaxErrorQuotesTheSourceWithACaret) {
  auto p = tiny_problem();
  p["expected"] = "any(consonant ? [0, 1] : [1, 0]";
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: expected: column 15: expected \")\" but found "
                                 "\"?\"\n"
                                 "  any(consonant ? [0, 1] : [1, 0]\n"
                                 "                ^"});
}

TEST(ProblemLoading, ExpectedUnknownClassListsTheKnownOnes) {
  auto p = tiny_problem();
  p["expected"] = "any(consonnant) ? [0, 1] : [1, 0]";
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: expected: column 5: unknown class \"consonnant\"; "
                                 "the known classes are vowel, consonant\n"
                                 "  any(consonnant) ? [0, 1] : [1, 0]\n"
                                 "      ^"});
}

TEST(ProblemLoading, ExpectedDividingByZeroOnATestedString) {
  // The walk is depth-first in alphabet order: every string under "a" has a vowel, so the
  // first string without one is "b".
  auto p = tiny_problem();
  p["expected"] = "count(consonant) / count(vowel)";
  p["reference"]["W_V"] = Json::parse("[[0, 1]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: expected: divides by zero on the tested string "
                                 "\"b\" at position 1\n"
                                 "  count(consonant) / count(vowel)\n"
                                 "                   ^"});
}

TEST(ProblemLoading, ExpectedDividingByZeroDeepInTheSetNamesTheFirstStringInTestOrder) {
  // Five consonants first occur within length 6 under "a" at "abbbbb": the set is proven
  // one prefix per count state, and the fault found there is named as the walk meets it.
  auto p = tiny_problem();
  p["expected"] = "count(vowel) / (count(consonant) - 5)";
  p["strings"] = Json::parse(R"({"max_length": 6})");
  p["reference"]["W_V"] = Json::parse("[[0, 1]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: expected: divides by zero on the tested string "
                                 "\"abbbbb\" at position 6\n"
                                 "  count(vowel) / (count(consonant) - 5)\n"
                                 "               ^"});
}

TEST(ProblemLoading, ExpectedReadingAWindowThatDividesByZeroNamesTheFirstStringInTestOrder) {
  // pos − 3 + at(pos − 1, consonant) is 0 at position 3 after a vowel, and at position 2
  // after a consonant. The set is proven one prefix per window key (length, letter before),
  // and the fault is named as the walk meets it: "aaa" (after "a" and "aa").
  auto p = tiny_problem();
  p["expected"] = "1 / (pos - 3 + at(pos - 1, consonant))";
  p["strings"] = Json::parse(R"({"max_length": 4})");
  p["reference"]["W_V"] = Json::parse("[[0, 0]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: expected: divides by zero on the tested string "
                                 "\"aaa\" at position 3\n"
                                 "  1 / (pos - 3 + at(pos - 1, consonant))\n"
                                 "    ^"});
}

TEST(ProblemLoading, ExpectedDividingByZeroOnlyOnAnExample) {
  // No exhaustive set: the examples alone are tested, and the message names the whole
  // example ("bb"), not the prefix where the division fails.
  auto p = tiny_problem();
  p["expected"] = "count(consonant) / count(vowel)";
  p["strings"] =
      Json::parse(R"({"max_length": 3, "exhaustive_length": 0, "examples": ["ab", "bb"]})");
  p["reference"]["W_V"] = Json::parse("[[0, 1]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: expected: divides by zero on the tested string "
                                 "\"bb\" at position 1\n"
                                 "  count(consonant) / count(vowel)\n"
                                 "                   ^"});
}

// --- What the fields mean together -----------------------------------------------------------

TEST(ProblemLoading, TokensSharingAnEmbeddingThatExpectedTellsApart) {
  auto p = tiny_problem();
  p["W_E"] = Json::parse("[[1, 1], [0, 0]]");
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: W_E: \"a\" and \"b\" have the same embedding column, but expected "
                  "names class consonant, which holds \"b\" and not \"a\": no head can tell them "
                  "apart, so give them different columns or the same membership in every class "
                  "expected names"});
}

TEST(ProblemLoading, TokensSharingAnEmbeddingAreOneGroup) {
  // c shares b's column and b's class: it is represented by b, not tested on its own.
  auto p = tiny_problem();
  p["alphabet"] = "abc";
  p["classes"]["consonant"] = "bc";
  p["W_E"] = Json::parse("[[1, 0, 0], [0, 1, 1]]");
  auto loaded = load_problem_text(p.dump(), "tiny.json");
  ASSERT_TRUE(std::holds_alternative<Problem>(loaded));
  EXPECT_EQ(std::get<Problem>(loaded).representatives(), (std::vector<int>{0, 1}));
  EXPECT_EQ(std::get<Problem>(loaded).exhaustive_total(), 14u);
}

TEST(ProblemLoading, TestedSetOverTheBudgetSaysItsSizeAndWhatFits) {
  auto p = tiny_problem();
  p["strings"]["max_length"] = 25;
  EXPECT_EQ(
      defects_of(p),
      Lines{"tiny.json: strings: the tested set would hold up to 67108862 strings (every string "
            "up to length 25 over 2 groups of alike tokens, plus 0 examples and 0 random), "
            "over the budget of 40000000; lower strings.exhaustive_length (24 fits) or "
            "strings.random"});
}

TEST(ProblemLoading, ReferenceFailingItsOwnTestsNamesTheFirstFailingString) {
  // With W_k = 0 attention is uniform, so "ab" gives [0.5, 0.5] at position 2.
  auto p = tiny_problem();
  p["reference"]["W_k"] = Json::parse("[[0, 0]]");
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: reference: fails its own tests (8 of 14 strings fail); the first "
                  "is \"ab\": at position 2 it gives [0.5, 0.5] where expected is [0, 1] "
                  "(tolerance 0.1)"});
}

TEST(ProblemLoading, EveryDefectOfAFileAtOnce) {
  auto p = tiny_problem();
  p["id"] = "other";
  p["titel"] = "typo";
  p["W_E"] = Json::parse("[[1, 0, 0], [0, 1, 0]]");
  p["tolerance"] = 0;
  p["strings"]["random"] = -1;
  EXPECT_EQ(defects_of(p),
            (Lines{"tiny.json: titel: unknown field (did you mean \"title\"?); the fields are "
                   "listed in the authoring guide (problems/README.md)",
                   "tiny.json: id: is \"other\" but the file is tiny.json; the id must equal the "
                   "file name without .json",
                   "tiny.json: W_E: must have 2 columns (one per alphabet character); it has 3",
                   "tiny.json: tolerance: must be a number greater than 0; it is 0",
                   "tiny.json: strings.random: must be a whole number from 0 to 10000; it is "
                   "-1"}));
}

}  // namespace
}  // namespace headgrader

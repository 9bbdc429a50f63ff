// Problem files (API.md §2): the defects of `tolerance` and of `strings` (max_length,
// exhaustive_length, seed, random, examples, and a tested set that would be empty), whole
// numbers written with a fraction or an exponent, and the tested sets that load. Messages
// pinned verbatim.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "headgrader/problem.h"
#include "problem_loading_support.h"

namespace headgrader {
namespace {

using testing::defects_of;
using testing::tiny_problem;
using Lines = std::vector<std::string>;

// --- tolerance and strings -------------------------------------------------------------------

TEST(ProblemLoading, ToleranceMustBePositive) {
  auto p = tiny_problem();
  p["tolerance"] = 0;
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: tolerance: must be a number greater than 0; it is 0"});
  p["tolerance"] = -0.5;
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: tolerance: must be a number greater than 0; it is -0.5"});
}

TEST(ProblemLoading, MaxLengthFromOneTo64) {
  // Outside 1..64, written as an integer or not; the message shows the value as written.
  const std::pair<Json, std::string> kOutside[] = {
      {0, "0"}, {65, "65"}, {2.5, "2.5"}, {65.0, "65.0"}};
  for (const auto& [value, shown] : kOutside) {
    auto p = tiny_problem();
    p["strings"]["max_length"] = value;
    EXPECT_EQ(defects_of(p), Lines{"tiny.json: strings.max_length: must be a whole number from 1 "
                                   "to 64; it is " +
                                   shown});
  }
}

// As JSON Schema's "integer" and a submission's max_failures: 3.0 and 1e1 are whole numbers.
TEST(ProblemLoading, WholeNumbersWrittenWithAFractionOrExponentCount) {
  auto p = tiny_problem();
  p["strings"]["max_length"] = 3.0;
  p["strings"]["exhaustive_length"] = 2.0;
  p["strings"]["random"] = 1e1;
  p["strings"]["seed"] = 7.0;
  auto loaded = load_problem_text(p.dump(), "tiny.json");
  ASSERT_TRUE(std::holds_alternative<Problem>(loaded)) << defects_of(p)[0];
  const StringSpec& strings = std::get<Problem>(loaded).strings;
  EXPECT_EQ(strings.max_length, 3);
  EXPECT_EQ(strings.exhaustive_length, 2);
  EXPECT_EQ(strings.random, 10);
  EXPECT_EQ(strings.seed, 7u);

  p["strings"]["seed"] = 1e18;  // whole and in range, but past 2^53 a double may not be exact
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: strings.seed: must be a whole number from 0 to "
                                 "9223372036854775807; it is 1e+18, too large to read exactly "
                                 "unless written as an integer (digits only)"});
  p["strings"]["seed"] = 1e19;
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: strings.seed: must be a whole number from 0 to "
                                 "9223372036854775807; it is 1e+19"});
}

TEST(ProblemLoading, ExhaustiveLengthAtMostMaxLength) {
  auto p = tiny_problem();
  p["strings"]["exhaustive_length"] = 4;
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: strings.exhaustive_length: must be "
                                 "at most strings.max_length (3); it is 4"});
}

TEST(ProblemLoading, SeedFromZeroBelowTwoToThe63) {
  auto p = tiny_problem();
  p["strings"]["seed"] = -1;
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: strings.seed: must be a whole number from 0 to "
                                 "9223372036854775807; it is -1"});
  p["strings"]["seed"] = 9223372036854775808ULL;  // 2^63
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: strings.seed: must be a whole number from 0 to "
                                 "9223372036854775807; it is 9223372036854775808"});
  p["strings"]["seed"] = 9223372036854775807LL;
  EXPECT_EQ(defects_of(p), Lines{"loaded"});
}

TEST(ProblemLoading, RandomAtMost10000) {
  auto p = tiny_problem();
  p["strings"]["random"] = 10001;
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: strings.random: must be a whole number from 0 to "
                                 "10000; it is 10001"});
}

TEST(ProblemLoading, ExampleLongerThanMaxLength) {
  auto p = tiny_problem();
  p["strings"]["examples"] = Json::parse(R"(["ab", "abab"])");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: strings.examples[1]: \"abab\" has 4 characters, "
                                 "more than strings.max_length (3)"});
}

TEST(ProblemLoading, ExampleWithACharacterOutsideTheAlphabet) {
  auto p = tiny_problem();
  p["strings"]["examples"] = Json::parse(R"(["abc"])");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: strings.examples[0]: \"abc\" holds \"c\", which is "
                                 "not in the alphabet"});
}

TEST(ProblemLoading, EmptyExample) {
  auto p = tiny_problem();
  p["strings"]["examples"] = Json::parse(R"([""])");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: strings.examples[0]: is empty; a tested string has "
                                 "at least one character"});
}

TEST(ProblemLoading, TestedSetThatWouldBeEmptyIsRefused) {
  // Without a string to test, every submission would pass with a score of 0 / 0.
  const std::string want =
      "tiny.json: strings: nothing would be tested: exhaustive_length is 0 and there are no "
      "examples or random strings; set strings.exhaustive_length to 1..3 (max_length), or add "
      "strings.examples or strings.random";
  auto p = tiny_problem();
  p["strings"] = Json::parse(R"({"max_length": 3, "exhaustive_length": 0})");
  EXPECT_EQ(defects_of(p), Lines{want});
  p["strings"] = Json::parse(R"({"max_length": 3, "exhaustive_length": 0, "random": 0,
                                  "examples": []})");
  EXPECT_EQ(defects_of(p), Lines{want});
}

TEST(ProblemLoading, OneRandomStringAloneIsATestedSet) {
  auto p = tiny_problem();
  p["strings"] = Json::parse(R"({"max_length": 3, "exhaustive_length": 0, "random": 1})");
  auto loaded = load_problem_text(p.dump(), "tiny.json");
  ASSERT_TRUE(std::holds_alternative<Problem>(loaded)) << defects_of(p)[0];
  EXPECT_EQ(std::get<Problem>(loaded).exhaustive_total(), 0u);
  EXPECT_EQ(std::get<Problem>(loaded).tested_total(), 1u);
}

TEST(ProblemLoading, ExamplesAloneAreATestedSetOfDistinctStrings) {
  auto p = tiny_problem();
  p["strings"] = Json::parse(R"({"max_length": 3, "exhaustive_length": 0,
                                  "examples": ["ab", "b", "ab"]})");
  auto loaded = load_problem_text(p.dump(), "tiny.json");
  ASSERT_TRUE(std::holds_alternative<Problem>(loaded)) << defects_of(p)[0];
  EXPECT_EQ(std::get<Problem>(loaded).tested_total(), 2u);  // "ab" once, "b"
}

}  // namespace
}  // namespace headgrader

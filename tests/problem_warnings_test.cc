// problem_warnings: what a problem that loads may still get wrong.
#include "headgrader/problem_warnings.h"

#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <string>
#include <variant>

#include "headgrader/report.h"
#include "test_support.h"

namespace headgrader {
namespace {

Json bundled_json(const std::string& id) {
  std::ifstream in(HEADGRADER_SOURCE_DIR "/problems/" + id + ".json");
  return Json::parse(in);
}

// The problem, or nullopt with its defects reported.
std::optional<Problem> load(const Json& json) {
  auto loaded = load_problem_text(json.dump(), json["id"].get<std::string>() + ".json");
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    for (const Defect& defect : *defects) ADD_FAILURE() << defect.to_string();
    return std::nullopt;
  }
  return std::get<Problem>(std::move(loaded));
}

TEST(ProblemWarnings, NoneForTheBundledProblems) {
  // Each expects a component of 1 somewhere within 0.1, which an output of zeros misses.
  for (const auto& problem : testing::bundled_problems().problems()) {
    EXPECT_TRUE(problem_warnings(*problem).empty()) << problem->id;
  }
}

TEST(ProblemWarnings, AToleranceThatLetsZerosPassIsNamed) {
  // consonant-anywhere expects [1, 0] or [0, 1] everywhere: zeros are off by exactly 1.
  Json json = bundled_json("consonant-anywhere");
  json["tolerance"] = 1;
  const auto loose = load(json);
  ASSERT_TRUE(loose);
  const auto warnings = problem_warnings(*loose);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].field, "tolerance");
  EXPECT_EQ(warnings[0].message,
            "a submission of zeros (W_q, W_k and W_V all 0) passes all 697 tested strings: with "
            "a tolerance of 1 the grade cannot tell a solution from none; make the tolerance "
            "smaller or `expected` farther from what such a head outputs");

  json["tolerance"] = 0.99;
  const auto tight = load(json);
  ASSERT_TRUE(tight);
  EXPECT_TRUE(problem_warnings(*tight).empty());
}

TEST(ProblemWarnings, AnEmptyTitleOrStatementAndALetterListedTwiceAreNamed) {
  Json json = bundled_json("consonant-anywhere");
  json["title"] = "";
  json["statement"] = " \n";
  json["classes"]["vowel"] = "aeiouo";
  const auto problem = load(json);
  ASSERT_TRUE(problem);
  const auto warnings = problem_warnings(*problem);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_EQ(warnings[0].field, "title");
  EXPECT_EQ(warnings[0].message,
            "is empty or blank: students see the problem listed without a name");
  EXPECT_EQ(warnings[1].field, "statement");
  EXPECT_EQ(warnings[1].message, "is empty or blank: students are not told what to build");
  EXPECT_EQ(warnings[2].field, "classes.vowel");
  EXPECT_EQ(warnings[2].message,
            "lists \"o\" more than once; once is enough (a typo for another letter?)");
}

TEST(ProblemWarnings, ALetterListedTwiceIsFoundWhateverItsLengthInBytes) {
  Json json = bundled_json("consonant-anywhere");
  json["alphabet"] = json["alphabet"].get<std::string>() + "é";  // two bytes in UTF-8
  for (auto& row : json["W_E"]) row.push_back(0);
  json["W_E"][0].back() = 1;
  json["classes"]["vowel"] = "aeiouéé";
  const auto problem = load(json);
  ASSERT_TRUE(problem);
  const auto warnings = problem_warnings(*problem);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].message,
            "lists \"é\" more than once; once is enough (a typo for another letter?)");
}

TEST(ProblemWarnings, AGivenMatrixKeepsItsValuesInTheSubmissionOfZeros) {
  // With W_V given as the identity, zeros for W_q and W_k attend uniformly: the output is
  // the share of vowels and of consonants so far. Its worst error against "has a consonant
  // occurred" is 7/8, at "aaaaaaab" (output [7/8, 1/8], expected [0, 1]).
  Json json = bundled_json("consonant-anywhere");
  json["submit"] = Json::array({"W_q", "W_k"});
  json["given"] = {{"W_V", json["reference"]["W_V"]}};
  json["reference"].erase("W_V");
  json["tolerance"] = 0.875;
  const auto loose = load(json);
  ASSERT_TRUE(loose);
  const auto warnings = problem_warnings(*loose);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].message,
            "a submission of zeros (W_q and W_k all 0, W_V as given) passes all 697 tested "
            "strings: with a tolerance of 0.875 the grade cannot tell a solution from none; make "
            "the tolerance smaller or `expected` farther from what such a head outputs");

  json["tolerance"] = 0.87;
  const auto tight = load(json);
  ASSERT_TRUE(tight);
  EXPECT_TRUE(problem_warnings(*tight).empty());
}

}  // namespace
}  // namespace headgrader

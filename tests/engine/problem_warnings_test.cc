// problem_warnings: what a problem that loads may still get wrong.
#include "headgrader/problem_warnings.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "headgrader/report.h"
#include "test_support.h"

namespace headgrader {
namespace {

using testing::bundled_json;

using Lines = std::vector<std::string>;

// The warnings of the problem `json` describes, each as "FIELD: MESSAGE"; a problem that
// does not load fails the test, its defects reported.
Lines warnings_of(const Json& json) {
  auto loaded = load_problem_text(json.dump(), json["id"].get<std::string>() + ".json");
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    for (const Defect& defect : *defects) ADD_FAILURE() << defect.to_string();
    return {"(the problem did not load)"};
  }
  Lines lines;
  for (const auto& w : problem_warnings(std::get<Problem>(loaded))) {
    lines.push_back(w.field + ": " + w.message);
  }
  return lines;
}

TEST(ProblemWarnings, NoneForTheBundledProblems) {
  // Each expects a component of 1 somewhere within 0.1, which an output of zeros misses.
  for (const auto& problem : testing::bundled_problems().problems()) {
    EXPECT_TRUE(problem_warnings(*problem).empty()) << problem->id;
  }
}

TEST(ProblemWarnings, AToleranceThatLetsZerosPassIsNamedGivenMatricesAsGiven) {
  struct Case {
    std::string what;
    Json problem;
    double loose, tight;  // the largest error of the zeros, and just under it
    std::string warning;
  };
  // consonant-anywhere expects [1, 0] or [0, 1] everywhere: zeros are off by exactly 1.
  Case all_submitted{"all submitted", bundled_json("consonant-anywhere"), 1, 0.99,
                     "tolerance: a submission of zeros (W_q, W_k and W_V all 0) passes all 697 "
                     "tested strings: with a tolerance of 1 the grade cannot tell a solution "
                     "from none; make the tolerance smaller or `expected` farther from what such "
                     "a head outputs"};
  // With W_V given as the identity, zeros for W_q and W_k attend uniformly: the output is
  // the share of vowels and of consonants so far. Its worst error against "has a consonant
  // occurred" is 7/8, at "aaaaaaab" (output [7/8, 1/8], expected [0, 1]).
  Case v_given{"W_V given", bundled_json("consonant-anywhere"), 0.875, 0.87,
               "tolerance: a submission of zeros (W_q and W_k all 0, W_V as given) passes all "
               "697 tested strings: with a tolerance of 0.875 the grade cannot tell a solution "
               "from none; make the tolerance smaller or `expected` farther from what such a "
               "head outputs"};
  v_given.problem["submit"] = Json::array({"W_q", "W_k"});
  v_given.problem["given"] = {{"W_V", v_given.problem["reference"]["W_V"]}};
  v_given.problem["reference"].erase("W_V");

  for (Case& c : {std::ref(all_submitted), std::ref(v_given)}) {
    SCOPED_TRACE(c.what);
    c.problem["tolerance"] = c.loose;
    EXPECT_EQ(warnings_of(c.problem), Lines{c.warning});
    c.problem["tolerance"] = c.tight;
    EXPECT_EQ(warnings_of(c.problem), Lines{});
  }
}

TEST(ProblemWarnings, AnEmptyTitleOrStatementAndALetterListedTwiceAreNamed) {
  Json json = bundled_json("consonant-anywhere");
  json["title"] = "";
  json["statement"] = " \n";
  json["classes"]["vowel"] = "aeiouo";
  EXPECT_EQ(warnings_of(json),
            (Lines{"title: is empty or blank: students see the problem listed without a name",
                   "statement: is empty or blank: students are not told what to build",
                   "classes.vowel: lists \"o\" more than once; once is enough (a typo for "
                   "another letter?)"}));
}

TEST(ProblemWarnings, ALetterListedTwiceIsFoundWhateverItsLengthInBytes) {
  Json json = bundled_json("consonant-anywhere");
  json["alphabet"] = json["alphabet"].get<std::string>() + "é";  // two bytes in UTF-8
  for (auto& row : json["W_E"]) row.push_back(0);
  json["W_E"][0].back() = 1;  // a vowel
  json["classes"]["vowel"] = "aeiouéé";
  EXPECT_EQ(warnings_of(json),
            Lines{"classes.vowel: lists \"é\" more than once; once is enough (a typo for "
                  "another letter?)"});
}

}  // namespace
}  // namespace headgrader

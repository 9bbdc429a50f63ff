// Problem files (API.md §2): the small problem of problem_loading_support.h loads, and the
// defects of a file as a whole, of its required and unknown fields and of its id, each with
// its message pinned verbatim. The other fields' defects are in problem_matrices_test.cc,
// problem_strings_test.cc and problem_cross_checks_test.cc; folders of problem files in
// problem_set_loading_test.cc.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "headgrader/limits.h"
#include "headgrader/problem.h"
#include "problem_loading_support.h"

namespace headgrader {
namespace {

using testing::defects_of;
using testing::defects_of_text;
using testing::tiny_problem;
using Lines = std::vector<std::string>;

TEST(ProblemLoading, TinyProblemLoads) {
  auto loaded = load_problem_text(tiny_problem().dump(), "tiny.json");
  ASSERT_TRUE(std::holds_alternative<Problem>(loaded)) << defects_of(tiny_problem())[0];
  const auto& p = std::get<Problem>(loaded);
  EXPECT_EQ(p.id, "tiny");
  EXPECT_EQ(p.n_e, 2u);
  EXPECT_EQ(p.n_v, 2u);
  EXPECT_EQ(p.strings.exhaustive_length, 3);  // defaults to max_length
  EXPECT_EQ(p.exhaustive_total(), 14u);       // 2 + 4 + 8
  EXPECT_EQ(p.head.scale, 1.0);
  EXPECT_TRUE(p.head.causal);
}

// --- The file as a whole ---------------------------------------------------------------------

TEST(ProblemLoading, TooDeepFileNamesTheTopLevelFieldItIsUnder) {
  const std::string deep = std::string(40, '[') + std::string(40, ']');
  EXPECT_EQ(defects_of_text(R"({"id": "tiny", "W_E": )" + deep + "}"),
            Lines{"tiny.json: W_E: the file is nested more than 32 levels deep"});
  EXPECT_EQ(defects_of_text(deep), Lines{"tiny.json: the file is nested more than 32 levels deep"});
}

TEST(ProblemLoading, BadJsonGivesTheLineAndColumnAndWhyInPlainWords) {
  EXPECT_EQ(defects_of_text(R"({"id": "tiny",)"),
            Lines{"tiny.json: the file is not valid JSON at line 1, column 15: it ends before "
                  "every bracket, brace and quote is closed"});
  // The usual slips of a file edited by hand, each on the line and column where it is.
  EXPECT_EQ(defects_of_text("{\n  \"id\": \"tiny\",\n  \"tolerance\": 0.1\n  \"title\": \"t\"\n}"),
            Lines{"tiny.json: the file is not valid JSON at line 4, column 3: a comma is missing "
                  "before this item"});
  EXPECT_EQ(defects_of_text("{\n  \"id\": \"tiny\",\n  \"tolerance\": 0.1,\n}\n"),
            Lines{"tiny.json: the file is not valid JSON at line 4, column 1: a comma comes "
                  "before this '}': JSON has no comma after the last item"});
  EXPECT_EQ(defects_of_text("// my problem\n{}"),
            Lines{"tiny.json: the file is not valid JSON at line 1, column 1: JSON has no "
                  "comments"});
  EXPECT_EQ(defects_of_text(""),
            Lines{"tiny.json: the file is not valid JSON at line 1, column 1: it is empty"});
}

TEST(ProblemLoading, FileMustHoldAnObject) {
  EXPECT_EQ(defects_of_text("[1, 2]"),
            Lines{"tiny.json: must hold one JSON object (a problem); it holds an array"});
  EXPECT_EQ(defects_of_text("\"tiny\""),
            Lines{"tiny.json: must hold one JSON object (a problem); it holds a single value"});
}

// --- Required fields -------------------------------------------------------------------------

TEST(ProblemLoading, EachRequiredFieldMissingIsNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"id", "tiny.json: id: is missing"},
      {"title", "tiny.json: title: is missing"},
      {"statement", "tiny.json: statement: is missing"},
      {"W_E", "tiny.json: W_E: is missing"},
      {"expected", "tiny.json: expected: is missing"},
      {"tolerance", "tiny.json: tolerance: is missing"},
      {"strings", "tiny.json: strings: is missing (it needs at least max_length)"},
      {"reference",
       "tiny.json: reference: is missing; it must hold a known-good answer for each submitted "
       "matrix, and the loader checks that it passes: run headgrader solve tiny.json --write to "
       "search for one and write it here"},
  };
  for (const auto& [field, message] : cases) {
    auto p = tiny_problem();
    p.erase(field);
    EXPECT_EQ(defects_of(p), Lines{message}) << "without " << field;
  }
}

TEST(ProblemLoading, MissingAlphabetIsTheOnlyDefect) {
  auto p = tiny_problem();
  p.erase("alphabet");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: alphabet: is missing"});
}

TEST(ProblemLoading, EmptyAlphabetIsNotRepeatedForEveryClassAndExample) {
  auto p = tiny_problem();
  p["alphabet"] = "";
  p["strings"]["examples"] = Json::parse(R"(["ab"])");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: alphabet: is empty; it needs at least one character"});
}

TEST(ProblemLoading, MissingClassesSuggestsAnEmptyObject) {
  auto p = tiny_problem();
  p.erase("classes");
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: classes: is missing (use {} when `expected` names no class)"});
}

TEST(ProblemLoading, MissingSubmitIsTheOnlyDefect) {
  auto p = tiny_problem();
  p.erase("submit");
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: submit: is missing (for example [\"W_q\", \"W_k\", \"W_V\"])"});
}

TEST(ProblemLoading, MissingMaxLength) {
  auto p = tiny_problem();
  p["strings"] = Json::object();
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: strings.max_length: is missing"});
}

TEST(ProblemLoading, UnknownFieldSuggestsTheNearestName) {
  auto p = tiny_problem();
  p["titel"] = "typo";
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: titel: unknown field (did you mean \"title\"?); the fields are "
                  "listed in the authoring guide (problems/README.md)"});
}

TEST(ProblemLoading, PassbackIsBestUnlessTheFileSaysLatest) {
  auto p = tiny_problem();
  const auto kept = [](const Json& problem) {
    return std::get<Problem>(load_problem_text(problem.dump(), "tiny.json")).passback;
  };
  EXPECT_EQ(kept(p), PassbackScore::kBest);
  p["passback"] = "latest";
  EXPECT_EQ(kept(p), PassbackScore::kLatest);
  p["passback"] = "best";
  EXPECT_EQ(kept(p), PassbackScore::kBest);
  p["passback"] = "highest";
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: passback: must be \"best\" or \"latest\" (the score an LMS "
                  "gradebook keeps); it is \"highest\""});
  p["passback"] = 1;
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: passback: must be \"best\" or \"latest\" (the "
                                 "score an LMS gradebook keeps); it is a number"});
}

TEST(ProblemLoading, SchemaKeyForEditorsIsIgnoredWhenAString) {
  auto p = tiny_problem();
  p["$schema"] = "schema/problem.schema.json";
  EXPECT_EQ(defects_of(p), Lines{"loaded"});
  p["$schema"] = 3;
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: $schema: must be a string (where the JSON Schema "
                                 "is, e.g. \"schema/problem.schema.json\"); it is a number"});
}

TEST(ProblemLoading, UnknownFieldInsideStrings) {
  auto p = tiny_problem();
  p["strings"]["exhaustive_lenght"] = 2;
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: strings.exhaustive_lenght: unknown field (did you mean "
                  "\"exhaustive_length\"?); the fields are listed in the authoring guide "
                  "(problems/README.md)"});
}

TEST(ProblemLoading, AFieldNameCutShortIsSuggestedWhole) {
  const std::string guide = "; the fields are listed in the authoring guide (problems/README.md)";
  auto p = tiny_problem();
  p["strings"].erase("max_length");
  p["strings"]["max_len"] = 3;
  p["strings"]["exhaustive"] = 3;
  p["strings"]["ex"] = 3;  // too short to stand for a name
  EXPECT_EQ(
      defects_of(p),
      (Lines{"tiny.json: strings.max_len: unknown field (did you mean \"max_length\"?)" + guide,
             "tiny.json: strings.exhaustive: unknown field (did you mean "
             "\"exhaustive_length\"?)" +
                 guide,
             "tiny.json: strings.ex: unknown field" + guide,
             "tiny.json: strings.max_length: is missing"}));
}

// --- id --------------------------------------------------------------------------------------

TEST(ProblemLoading, IdMustMatchFileName) {
  auto p = tiny_problem();
  p["id"] = "other";
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: id: is \"other\" but the file is tiny.json; the id must equal the "
                  "file name without .json"});
}

TEST(ProblemLoading, ATransposedEmbeddingIsTheOnlyDefectReported) {
  // Three letters, two features: W_E written 3 x 2 instead of 2 x 3. Before, the sound
  // reference was also reported, as "must have 3 columns (… n_e = 3)".
  auto p = tiny_problem();
  p["alphabet"] = "abc";
  p["classes"] = {{"vowel", "a"}, {"consonant", "bc"}};
  p["W_E"] = Json::parse("[[1, 0], [0, 1], [0, 1]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: W_E: must have 3 columns (one per alphabet "
                                 "character); it has 2"});
  p["W_E"] = Json::parse("[[1, 0, 0], [0, 1, 1]]");
  EXPECT_EQ(defects_of(p), Lines{"loaded"});
}

TEST(ProblemLoading, AClassWrittenAsAnArrayIsNotAlsoAnUnknownClassInExpected) {
  auto p = tiny_problem();
  p["classes"]["consonant"] = Json::parse(R"(["b"])");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: classes.consonant: must be a string of alphabet "
                                 "characters; it is an array"});
}

TEST(ProblemLoading, AnExpectedOverSeveralLinesNamesTheLineAndItsColumn) {
  auto p = tiny_problem();
  p["expected"] = "any(consonant)\n  ? [0, 1]\n  : [1, 0";
  // Line 3 is "  : [1, 0" (9 characters): the expression ends at its column 10.
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: expected: line 3, column 10: expected \",\" or "
                                 "\"]\" but found end of input\n    : [1, 0\n           ^"});
}

TEST(ProblemLoading, AFileNotEndingInJsonIsNamedAsItIs) {
  // `validate notes.txt`: before, "but the file is notes.txt.json", a file that is not there.
  EXPECT_EQ(defects_of(tiny_problem(), "drafts/tiny.txt"),
            Lines{"drafts/tiny.txt: id: is \"tiny\" but the file is tiny.txt; the id must "
                  "equal the file name without .json"});
  EXPECT_EQ(defects_of(tiny_problem(), "drafts/tiny"),
            Lines{"drafts/tiny: id: is \"tiny\" but the file is tiny; the id must equal the "
                  "file name without .json"});
}

TEST(ProblemLoading, IdMatchesTheFileNameWithoutItsFolder) {
  EXPECT_EQ(defects_of(tiny_problem(), "some/folder/tiny.json"), Lines{"loaded"});
}

TEST(ProblemLoading, IdMustUseLowercaseLettersDigitsAndDashes) {
  auto p = tiny_problem();
  p["id"] = "Tiny_1";
  EXPECT_EQ(defects_of(p, "Tiny_1.json"),
            Lines{"Tiny_1.json: id: must be lowercase letters, digits and \"-\" only; it is "
                  "\"Tiny_1\""});
}

TEST(ProblemLoading, AnIdLongerThanTheLimitIsADefect) {
  auto p = tiny_problem();
  const std::string id(limits::kMaxProblemIdBytes + 1, 'a');
  p["id"] = id;
  EXPECT_EQ(defects_of(p, id + ".json"),
            Lines{id + ".json: id: is " + std::to_string(limits::kMaxProblemIdBytes + 1) +
                  " characters long; at most " + std::to_string(limits::kMaxProblemIdBytes) +
                  " are allowed"});
  p["id"] = std::string(limits::kMaxProblemIdBytes, 'a');
  EXPECT_EQ(defects_of(p, std::string(limits::kMaxProblemIdBytes, 'a') + ".json"), Lines{"loaded"});
}

TEST(ProblemId, IsOneToTheLimitOfLowercaseLettersDigitsAndDashes) {
  EXPECT_TRUE(is_problem_id("consonant-anywhere"));
  EXPECT_TRUE(is_problem_id("position-23"));
  EXPECT_TRUE(is_problem_id(std::string(limits::kMaxProblemIdBytes, 'a')));
  for (const std::string& id :
       {std::string(), std::string(".."), std::string("../keys"), std::string("/tmp/x/abs"),
        std::string("Upper"), std::string("a.json"), std::string("a\0b", 3), std::string("a b"),
        std::string(limits::kMaxProblemIdBytes + 1, 'a')}) {
    EXPECT_FALSE(is_problem_id(id)) << id;
  }
}

}  // namespace
}  // namespace headgrader

// Problem files (API.md §2): each defect a loader must catch, with its message pinned
// verbatim, and folders of problem files (ProblemSet::load). Every case starts from one
// small valid problem and breaks one thing, so the defect list is exactly that thing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "headgrader/limits.h"
#include "headgrader/problem.h"
#include "headgrader/report.h"

namespace headgrader {
namespace {

namespace fs = std::filesystem;

// "Has a consonant occurred?" over the alphabet "ab" (a a vowel, b a consonant), strings up
// to length 3. The reference is the handout's solution; it passes.
Json tiny_problem() {
  return Json::parse(R"({
    "id": "tiny",
    "title": "Has a consonant occurred?",
    "statement": "Output [0, 1] once a consonant has occurred, else [1, 0].",
    "alphabet": "ab",
    "classes": {"vowel": "a", "consonant": "b"},
    "W_E": [[1, 0], [0, 1]],
    "submit": ["W_q", "W_k", "W_V"],
    "expected": "any(consonant) ? [0, 1] : [1, 0]",
    "tolerance": 0.1,
    "strings": {"max_length": 3},
    "reference": {"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]}
  })");
}

// The defects of loading `text` as `file`, as their to_string() texts; {"loaded"} when the
// problem loads.
std::vector<std::string> defects_of_text(const std::string& text,
                                         const std::string& file = "tiny.json") {
  auto loaded = load_problem_text(text, file);
  if (std::holds_alternative<Problem>(loaded)) return {"loaded"};
  std::vector<std::string> out;
  for (const auto& d : std::get<std::vector<Defect>>(loaded)) out.push_back(d.to_string());
  return out;
}

std::vector<std::string> defects_of(const Json& problem, const std::string& file = "tiny.json") {
  return defects_of_text(problem.dump(), file);
}

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

// --- alphabet and classes --------------------------------------------------------------------

TEST(ProblemLoading, AlphabetCharacterTwice) {
  auto p = tiny_problem();
  p["alphabet"] = "aba";
  p["W_E"] = Json::parse("[[1, 0, 1], [0, 1, 0]]");
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: alphabet: \"a\" appears twice; each character must appear once"});
}

TEST(ProblemLoading, ClassCharacterNotInAlphabet) {
  auto p = tiny_problem();
  p["classes"]["vowel"] = "ax";
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: classes.vowel: holds \"x\", which is not in the alphabet"});
}

TEST(ProblemLoading, ClassNamedByAKeyword) {
  auto p = tiny_problem();
  p["classes"]["count"] = "a";
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: classes.count: is not a usable class name: it must start with a "
                  "letter or \"_\", continue with letters, digits or \"_\", and not be a keyword "
                  "(is, any, all, count, mean, at, pos, and, or, not)"});
}

// --- W_E and W_P -----------------------------------------------------------------------------

TEST(ProblemLoading, EmbeddingNeedsOneColumnPerCharacter) {
  auto p = tiny_problem();
  p["W_E"] = Json::parse("[[1, 0, 0], [0, 1, 0]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: W_E: must have 2 columns (one per alphabet "
                                 "character); it has 3"});
}

TEST(ProblemLoading, RaggedEmbedding) {
  auto p = tiny_problem();
  p["W_E"] = Json::parse("[[1, 0], [0]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: W_E: row 2 of W_E has 1 number but row 1 has 2; "
                                 "all rows must be the same length"});
}

TEST(ProblemLoading, PositionEmbeddingNeedsTheRowsOfW_E) {
  auto p = tiny_problem();
  p["W_P"] = Json::parse("[[1, 0, 0]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: W_P: must have 2 rows (n_e, as W_E has); it has 1"});
}

TEST(ProblemLoading, PositionEmbeddingNeedsAColumnPerPosition) {
  auto p = tiny_problem();
  p["W_P"] = Json::parse("[[0, 0], [0, 0]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: W_P: has 2 columns (positions) but "
                                 "strings.max_length is 3; it needs one column per position"});
}

// --- submit, given, reference ----------------------------------------------------------------

TEST(ProblemLoading, SubmitHoldsOnlyTheThreeNames) {
  auto p = tiny_problem();
  p["submit"].push_back("W_o");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: submit: may hold only \"W_q\", \"W_k\" and "
                                 "\"W_V\"; it holds \"W_o\""});
}

TEST(ProblemLoading, SubmitNameTwice) {
  auto p = tiny_problem();
  p["submit"].push_back("W_q");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: submit: W_q is listed twice"});
}

TEST(ProblemLoading, MatrixBothGivenAndSubmitted) {
  auto p = tiny_problem();
  p["given"] = Json::parse(R"({"W_V": [[1, 0], [0, 1]]})");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: given.W_V: is also in submit; a matrix is either "
                                 "submitted or given"});
}

TEST(ProblemLoading, MatrixNeitherGivenNorSubmitted) {
  auto p = tiny_problem();
  p["submit"] = Json::parse(R"(["W_q", "W_k"])");
  p["reference"].erase("W_V");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: given: W_V is neither submitted nor given; add it "
                                 "to submit or give it here"});
}

TEST(ProblemLoading, GivenMatrixLoads) {
  auto p = tiny_problem();
  p["submit"] = Json::parse(R"(["W_q", "W_k"])");
  p["given"] = Json::parse(R"({"W_V": [[1, 0], [0, 1]]})");
  p["reference"].erase("W_V");
  EXPECT_EQ(defects_of(p), Lines{"loaded"});
}

TEST(ProblemLoading, ReferenceMissingASubmittedMatrix) {
  auto p = tiny_problem();
  p["reference"].erase("W_k");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: reference: W_k is missing"});
}

TEST(ProblemLoading, ReferenceHoldingAMatrixNotSubmitted) {
  auto p = tiny_problem();
  p["submit"] = Json::parse(R"(["W_q", "W_k"])");
  p["given"] = Json::parse(R"({"W_V": [[1, 0], [0, 1]]})");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: reference.W_V: is not in submit; the reference "
                                 "holds exactly the submitted matrices"});
}

TEST(ProblemLoading, ReferenceWithTheWrongNumberOfColumns) {
  auto p = tiny_problem();
  p["reference"]["W_q"] = Json::parse("[[1, 1, 1]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: reference.W_q: must have 2 columns (one per "
                                 "embedding feature, n_e = 2); it has 3"});
}

TEST(ProblemLoading, ReferenceQueryAndKeyRowsDiffer) {
  auto p = tiny_problem();
  p["reference"]["W_k"] = Json::parse("[[0, 5], [0, 0]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: reference.W_k: has 2 rows but reference.W_q has 1; "
                                 "queries and keys share the size n_q"});
}

TEST(ProblemLoading, ValueRowsMustMatchTheExpectedLength) {
  auto p = tiny_problem();
  p["reference"]["W_V"] = Json::parse("[[1, 0], [0, 1], [0, 0]]");
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: expected: yields vectors of length 2 but reference.W_V has 3 rows; "
                  "the head's output (one value per row of W_V) must have the length of the "
                  "expected vector"});
}

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

// --- Folders ---------------------------------------------------------------------------------

// A fresh folder under /tmp, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "headgrader-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
  }

 private:
  fs::path path_;
};

std::vector<std::string> set_defects(const fs::path& path) {
  auto loaded = ProblemSet::load(path);
  if (std::holds_alternative<ProblemSet>(loaded)) return {"loaded"};
  std::vector<std::string> out;
  for (const auto& d : std::get<std::vector<Defect>>(loaded)) out.push_back(d.to_string());
  return out;
}

Json tiny_problem_with_id(const std::string& id) {
  auto p = tiny_problem();
  p["id"] = id;
  return p;
}

TEST(ProblemLoading, FolderReportsEveryDefectOfEveryFileInNameOrder) {
  TempDir dir;
  auto bad = tiny_problem_with_id("b-bad");
  bad["tolerance"] = 0;
  bad.erase("title");
  dir.write("b-bad.json", bad.dump());
  dir.write("c-good.json", tiny_problem_with_id("c-good").dump());
  dir.write("a-bad.json", "{");
  const std::string d = dir.path().string();
  EXPECT_EQ(set_defects(dir.path()),
            (Lines{d + "/a-bad.json: the file is not valid JSON at line 1, column 2: it ends "
                       "before every bracket, brace and quote is closed",
                   d + "/b-bad.json: title: is missing",
                   d + "/b-bad.json: tolerance: must be a number greater than 0; it is 0"}));
}

TEST(ProblemLoading, EmptyFolder) {
  TempDir dir;
  dir.write("notes.txt", "not a problem");
  EXPECT_EQ(set_defects(dir.path()),
            Lines{dir.path().string() + ": holds no problem files (*.json)"});
}

TEST(ProblemLoading, SingleFileIsASetOfOne) {
  TempDir dir;
  dir.write("tiny.json", tiny_problem().dump());
  auto loaded = ProblemSet::load(dir.path() / "tiny.json");
  ASSERT_TRUE(std::holds_alternative<ProblemSet>(loaded)) << set_defects(dir.path())[0];
  ASSERT_EQ(std::get<ProblemSet>(loaded).problems().size(), 1u);
  EXPECT_EQ(std::get<ProblemSet>(loaded).problems()[0]->id, "tiny");
}

TEST(ProblemLoading, NonexistentPath) {
  TempDir dir;
  EXPECT_EQ(set_defects(dir.path() / "nowhere"),
            Lines{(dir.path() / "nowhere").string() + ": does not exist"});
}

TEST(ProblemLoading, SymlinkLoopIsADefectNotACrash) {
  TempDir dir;
  fs::create_symlink("loop.json", dir.path() / "loop.json");
  const std::string loop = (dir.path() / "loop.json").string();
  EXPECT_EQ(set_defects(dir.path()),
            Lines{loop + ": cannot be read: Too many levels of symbolic links"});
  EXPECT_EQ(set_defects(dir.path() / "loop.json"),
            Lines{loop + ": cannot be read: Too many levels of symbolic links"});
}

TEST(ProblemLoading, FolderInsteadOfAFile) {
  TempDir dir;
  fs::create_directory(dir.path() / "odd.json");
  EXPECT_EQ(set_defects(dir.path()),
            Lines{(dir.path() / "odd.json").string() + ": is not a regular file"});
}

TEST(ProblemLoading, NonJsonFile) {
  TempDir dir;
  dir.write("notes.json", "These are my notes.\n");
  EXPECT_EQ(set_defects(dir.path()),
            Lines{dir.path().string() +
                  "/notes.json: the file is not valid JSON at line 1, column 1: this is not a "
                  "JSON value (a number, a \"string\", true, false, null, [ or {)"});
}

// API.md §2: problems/*.json, one problem a file. No name is set aside: a file named
// schema.json is a problem like any other (and a broken one stops the set), while the
// editors' JSON Schema sits in a subfolder, which the loader does not read.
TEST(ProblemLoading, EveryJsonFileInTheFolderIsAProblemWhateverItsName) {
  TempDir dir;
  dir.write("schema.json", tiny_problem_with_id("schema").dump());
  dir.write("tiny.json", tiny_problem().dump());
  fs::create_directory(dir.path() / "schema");
  dir.write("schema/problem.schema.json",
            R"({"$schema": "https://json-schema.org/draft/2020-12/schema"})");
  auto loaded = ProblemSet::load(dir.path());
  ASSERT_TRUE(std::holds_alternative<ProblemSet>(loaded)) << set_defects(dir.path())[0];
  const ProblemSet& set = std::get<ProblemSet>(loaded);
  EXPECT_EQ(set.problems().size(), 2u);
  EXPECT_NE(set.find("schema"), nullptr);
  EXPECT_NE(set.find("tiny"), nullptr);

  dir.write("schema.json", "{garbage");
  const auto defects = set_defects(dir.path());
  ASSERT_EQ(defects.size(), 1u);
  EXPECT_EQ(defects[0].rfind(dir.path().string() + "/schema.json: the file is not valid JSON", 0),
            0u)
      << defects[0];
}

TEST(ProblemLoading, HiddenFilesAreNotProblemsAsTheShellsGlobSkipsThem) {
  TempDir dir;
  dir.write("tiny.json", tiny_problem().dump());
  fs::create_symlink("root@host.1234:1700000000", dir.path() / ".#tiny.json");  // Emacs's lock
  dir.write(".tiny.json.swp.json", "{garbage");
  const auto loaded = ProblemSet::load(dir.path());
  ASSERT_TRUE(std::holds_alternative<ProblemSet>(loaded)) << set_defects(dir.path())[0];
  EXPECT_EQ(std::get<ProblemSet>(loaded).problems().size(), 1u);
}

TEST(ProblemLoading, ThousandSmallProblemsLoad) {
  TempDir dir;
  for (int n = 0; n < 1000; ++n) {
    const std::string id = "p" + std::to_string(1000 + n).substr(1);
    auto p = tiny_problem_with_id(id);
    p["strings"]["max_length"] = 2;
    dir.write(id + ".json", p.dump());
  }
  auto loaded = ProblemSet::load(dir.path());
  ASSERT_TRUE(std::holds_alternative<ProblemSet>(loaded)) << set_defects(dir.path())[0];
  const auto& set = std::get<ProblemSet>(loaded);
  ASSERT_EQ(set.problems().size(), 1000u);
  EXPECT_EQ(set.problems().front()->id, "p000");
  EXPECT_EQ(set.problems().back()->id, "p999");
  EXPECT_NE(set.find("p512"), nullptr);
  EXPECT_EQ(set.find("p1000"), nullptr);
}

// --- The bundled problems --------------------------------------------------------------------

TEST(ProblemLoading, BundledProblemsLoad) {
  auto loaded = ProblemSet::load(HEADGRADER_SOURCE_DIR "/problems");
  ASSERT_TRUE(std::holds_alternative<ProblemSet>(loaded))
      << set_defects(HEADGRADER_SOURCE_DIR "/problems")[0];
  const auto& set = std::get<ProblemSet>(loaded);
  ASSERT_EQ(set.problems().size(), 3u);
  EXPECT_EQ(set.problems()[0]->id, "consonant-anywhere");
  EXPECT_EQ(set.problems()[1]->id, "consonant-proportion");
  EXPECT_EQ(set.problems()[2]->id, "first-position");
}

TEST(ProblemLoading, ConsonantAnywhereTestsEveryStringUpToLength8OverTwoGroups) {
  auto loaded = ProblemSet::load(HEADGRADER_SOURCE_DIR "/problems");
  ASSERT_TRUE(std::holds_alternative<ProblemSet>(loaded));
  const Problem* p = std::get<ProblemSet>(loaded).find("consonant-anywhere");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->exhaustive_total(), 510u);                     // 2 + 4 + … + 256
  EXPECT_EQ(p->representatives(), (std::vector<int>{0, 1}));  // a and b
  EXPECT_EQ(p->spell({p->representatives()[0], p->representatives()[1]}), "ab");
}

}  // namespace
}  // namespace headgrader

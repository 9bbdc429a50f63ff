// Mistakes the author names (API.md §14): a failing head that passes every tested string
// against a mistake's `expected` is diagnosed with it, one that does not is not; the loader
// refuses a mistake the reference passes too, one that does not parse (caret text pinned),
// and names that are not words, repeat, or are the library's.
#include <gtest/gtest.h>

#include <fstream>

#include "headgrader/diagnosis.h"
#include "headgrader/report.h"
#include "test_support.h"

namespace headgrader {
namespace {

// The previous letter up to length 6 (tests/data/mistakes/previous-letter.json), with the
// current-letter mistake: k_j = [j, j²], the reference's query [2(i − 1), −1] · 10.
Json previous_letter() {
  std::ifstream in(HEADGRADER_SOURCE_DIR "/tests/data/mistakes/previous-letter.json");
  return Json::parse(in);
}

// Every defect of the file, as "field: message".
std::vector<std::string> mistake_file_defects(const Json& j) {
  auto loaded = load_problem_text(j.dump(), j.at("id").get<std::string>() + ".json");
  std::vector<std::string> found;
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    for (const Defect& d : *defects) found.push_back(d.field + ": " + d.message);
  }
  return found;
}

Json with_mistake(std::string name, std::string expected) {
  Json j = previous_letter();
  j["mistakes"] =
      Json::array({{{"name", name}, {"expected", expected}, {"message", "m"}, {"hint", "h"}}});
  return j;
}

// The current letter's head: the query [2i, −1] · 10 scores 10 (2ij − j²), largest at j = i
// by 10 over its neighbours, so the head copies letter i within e^-10 of it.
const HeadWeights kCurrentLetter{testing::rows({{0, 0, 20, 0}, {-10, -10, 0, 0}}),
                                 testing::rows({{0, 0, 1, 0}, {0, 0, 0, 1}}),
                                 testing::rows({{0, 1, 0, 0}, {0, 0, 0, 0}})};

TEST(AuthorMistakes, AHeadThatPassesTheMistakesExpectedIsNamedWithIt) {
  const Problem p = testing::loaded_or_abort(previous_letter());
  ASSERT_EQ(p.mistakes.size(), 1u);
  const GradeReport report = grade_with_diagnosis(p, kCurrentLetter, 1);
  ASSERT_FALSE(report.passed);
  // "ab" at position 2: letter 1 is a vowel, expected [0, 0]; the head copies the b.
  EXPECT_EQ(p.spell(report.failures.at(0).input), "ab");
  ASSERT_FALSE(report.diagnosis.empty());
  const Diagnosis& named = report.diagnosis.back();
  EXPECT_EQ(named.mistake, "current_letter");
  EXPECT_EQ(named.message, p.mistakes[0].message);
  EXPECT_EQ(named.hint, p.mistakes[0].hint);
  // The grade answer carries it as the library's (API.md §13).
  const Json answer = Json::parse(report_json(p, report));
  EXPECT_EQ(answer.at("diagnosis").back(), Json({{"mistake", "current_letter"},
                                                 {"message", p.mistakes[0].message},
                                                 {"hint", p.mistakes[0].hint}}));
}

TEST(AuthorMistakes, AHeadThatFailsTheMistakesExpectedIsNotNamedWithIt) {
  const Problem p = testing::loaded_or_abort(previous_letter());
  // Attending two letters back: the query [2(i − 2), −1] · 10 peaks at j = i − 2 (position 3
  // of "baa" copies the b where the current letter, a, is a vowel).
  const HeadWeights two_back{testing::rows({{-40, -40, 20, 0}, {-10, -10, 0, 0}}),
                             testing::rows({{0, 0, 1, 0}, {0, 0, 0, 1}}),
                             testing::rows({{0, 1, 0, 0}, {0, 0, 0, 0}})};
  const GradeReport report = grade_with_diagnosis(p, two_back, 1);
  ASSERT_FALSE(report.passed);
  for (const Diagnosis& d : report.diagnosis) EXPECT_NE(d.mistake, "current_letter");
  EXPECT_TRUE(report.diagnosis_not_tried.empty());
  // And a passing head has its margin, no diagnosis.
  const GradeReport reference = grade_with_diagnosis(p, p.reference, 1);
  EXPECT_TRUE(reference.passed);
  EXPECT_TRUE(reference.diagnosis.empty());
}

TEST(AuthorMistakes, AProblemWithoutMistakesDiagnosesAsBefore) {
  Json j = previous_letter();
  j.erase("mistakes");
  const Problem p = testing::loaded_or_abort(j);
  EXPECT_TRUE(p.mistake_targets().empty());
  for (const Diagnosis& d : grade_with_diagnosis(p, kCurrentLetter, 1).diagnosis) {
    EXPECT_NE(d.mistake, "current_letter");
  }
}

TEST(AuthorMistakes, AMistakeTheReferencePassesTooIsRefused) {
  // The problem's own expected, written another way: the reference passes it.
  EXPECT_EQ(mistake_file_defects(with_mistake(
                "same", "pos == 1 ? [is(consonant), 0] : [at(pos - 1, consonant), 0 * pos]")),
            std::vector<std::string>{
                "mistakes[0]: the reference passes every tested string against this mistake's "
                "expected too, so the tests cannot tell the mistake from the solution and no "
                "failing head would be named with it; give an expected that differs from the "
                "problem's by more than the tolerance on some tested string (or add such a "
                "string to strings.examples)"});
}

TEST(AuthorMistakes, AMistakeWhoseExpectedDoesNotParseIsRefusedWithACaret) {
  EXPECT_EQ(mistake_file_defects(with_mistake("current_letter", "[is(consonnant), 0]")),
            std::vector<std::string>{"mistakes[0].expected: column 5: unknown class "
                                     "\"consonnant\"; the known classes are vowel, consonant\n"
                                     "  [is(consonnant), 0]\n"
                                     "      ^"});
}

TEST(AuthorMistakes, AMistakeOfAnotherLengthIsRefused) {
  EXPECT_EQ(mistake_file_defects(with_mistake("current_letter", "is(consonant)")),
            std::vector<std::string>{
                "mistakes[0].expected: gives a vector of 1 numbers, but the problem's expected "
                "gives 2: a mistake is a wrong target of the same head, so the same length"});
}

TEST(AuthorMistakes, NamesAreWordsUsedOnceAndNotTheLibrarys) {
  EXPECT_EQ(mistake_file_defects(with_mistake("Current-Letter", "[is(consonant), 0]")),
            std::vector<std::string>{"mistakes[0].name: must be 1 to 64 of a-z and \"_\" (e.g. "
                                     "\"current_letter\"); it is \"Current-Letter\""});
  EXPECT_EQ(mistake_file_defects(with_mistake("key_too_soft", "[is(consonant), 0]")),
            std::vector<std::string>{
                "mistakes[0].name: \"key_too_soft\" is a mistake the grader already knows "
                "(API.md §13); give yours another name"});
  Json twice = with_mistake("current_letter", "[is(consonant), 0]");
  twice["mistakes"].push_back(twice["mistakes"][0]);
  EXPECT_EQ(mistake_file_defects(twice),
            std::vector<std::string>{"mistakes[1].name: \"current_letter\" names an earlier "
                                     "mistake too; each name may be used once"});
}

TEST(AuthorMistakes, AMistakeWithoutAHintOrWithABlankMessageIsRefused) {
  Json j = with_mistake("current_letter", "[is(consonant), 0]");
  j["mistakes"][0].erase("hint");
  j["mistakes"][0]["message"] = " ";
  j["mistakes"][0]["hints"] = "h";
  EXPECT_EQ(mistake_file_defects(j),
            (std::vector<std::string>{
                "mistakes[0].hints: unknown field (did you mean \"hint\"?); the fields are listed "
                "in the authoring guide (problems/README.md)",
                "mistakes[0].message: is empty or blank: a student who makes the mistake would "
                "read nothing",
                "mistakes[0].hint: is missing"}));
}

}  // namespace
}  // namespace headgrader

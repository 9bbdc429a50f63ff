// The words a student reads in their own coordinates (grader/variant_text.h, API.md §15): an
// author's {feature:NAME} and {output:N} filled for each variant, and `expected`'s source
// written in the student's order. The student's numbers are worked out here from the
// relabeling's parts, and the rewritten `expected` is checked against the problem's own values
// with the components reordered in the test.
#include "variant_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "headgrader/diagnosis.h"
#include "headgrader/problem_warnings.h"
#include "headgrader/report.h"
#include "headgrader/variant.h"
#include "test_support.h"

namespace headgrader {
namespace {

using testing::bundled_json;
using testing::loaded_or_abort;

const std::string kTextSecret = "0123456789abcdef0123456789abcdef-text-secret";

// Exercise 3 relabeled every way, with placeholders in its statement and in a named mistake.
nlohmann::json worded_problem_json() {
  nlohmann::json j = bundled_json("first-position");
  j["id"] = "first-position-worded";
  j["statement"] =
      "Row {feature:start} of W_E marks the first position. Output {output:1} is 1 when the "
      "first letter is a consonant; a {brace} that is no placeholder stays.";
  j["feature_names"] = {"vowel", "consonant", "start"};
  j["variants"] = {
      {"permute_features", true}, {"permute_outputs", true}, {"feature_scales", {1, 2}}};
  j["mistakes"] = {{{"name", "vowel_first"},
                    {"expected", "at(1, vowel) ? [1, 0] : [0, 0]"},
                    {"message", "Output {output:1} fires when the first letter is a vowel."},
                    {"hint", "Column {feature:consonant} of W_k, not {feature:vowel}."}}};
  return j;
}

const Problem& worded_problem() {
  static const Problem p = loaded_or_abort(worded_problem_json());
  return p;
}

Problem relabeled_or_abort(const Problem& p, const Relabeling& r) {
  auto derived = relabel_problem(p, r);
  if (auto* defects = std::get_if<std::vector<Defect>>(&derived)) {
    for (const auto& d : *defects) ADD_FAILURE() << d.to_string();
    std::abort();
  }
  return std::get<Problem>(std::move(derived));
}

// The student's 1-based row of the problem's row `row`, and of its output `output`, from the
// relabeling's parts: the student's row i is the problem's row features[i].
std::string student_row(const Relabeling& r, std::size_t row) {
  for (std::size_t i = 0; i < r.features.size(); ++i) {
    if (r.features[i] == row) return std::to_string(i + 1);
  }
  return std::to_string(row + 1);
}
std::string student_output(const Relabeling& r, std::size_t output) {
  for (std::size_t j = 0; j < r.outputs.size(); ++j) {
    if (r.outputs[j] == output) return std::to_string(j + 1);
  }
  return std::to_string(output + 1);
}

std::vector<Defect> text_defects(const nlohmann::json& j) {
  auto loaded = load_problem_text(j.dump(), j["id"].get<std::string>() + ".json");
  if (std::holds_alternative<Problem>(loaded)) return {};
  return std::get<std::vector<Defect>>(loaded);
}

TEST(VariantText, ThePlaceholdersOfTheProblemAsWrittenAreItsOwnRowsAndOutputs) {
  const Problem& p = worded_problem();
  EXPECT_EQ(p.shown_statement(),
            "Row 3 of W_E marks the first position. Output 1 is 1 when the first letter is a "
            "consonant; a {brace} that is no placeholder stays.");
  EXPECT_EQ(problem_to_json(p)["statement"], p.shown_statement());
  EXPECT_EQ(p.shown_message(0), "Output 1 fires when the first letter is a vowel.");
  EXPECT_EQ(p.shown_hint(0), "Column 2 of W_k, not 1.");
  // The spec keeps what the author wrote.
  EXPECT_NE(p.statement.find("{feature:start}"), std::string::npos);
}

TEST(VariantText, EachStudentReadsTheRowAndOutputOfTheirOwnVariant) {
  const Problem& p = worded_problem();
  int reordered = 0;
  for (int k = 0; k < 12; ++k) {
    const Relabeling r = derive_relabeling(kTextSecret, p, "student-" + std::to_string(k));
    const Problem v = relabeled_or_abort(p, r);
    // Rows: vowel 0, consonant 1, start 2 as written; output 0 is the one that fires.
    EXPECT_EQ(v.shown_statement(),
              "Row " + student_row(r, 2) + " of W_E marks the first position. Output " +
                  student_output(r, 0) +
                  " is 1 when the first letter is a consonant; a {brace} that is no "
                  "placeholder stays.");
    EXPECT_EQ(problem_to_json(v)["statement"], v.shown_statement());
    EXPECT_EQ(v.shown_message(0),
              "Output " + student_output(r, 0) + " fires when the first letter is a vowel.");
    EXPECT_EQ(v.shown_hint(0),
              "Column " + student_row(r, 1) + " of W_k, not " + student_row(r, 0) + ".");
    // The row named there is the one the student's W_E labels so.
    const std::size_t start_row = std::stoul(student_row(r, 2)) - 1;
    EXPECT_EQ(v.feature_names[start_row], "start");
    if (student_row(r, 2) != "3" || student_output(r, 0) != "1") ++reordered;
  }
  EXPECT_GT(reordered, 0) << "no student of twelve had their rows or outputs reordered";
}

TEST(VariantText, AStudentsDiagnosisHintNamesTheirOwnColumn) {
  const Problem& p = worded_problem();
  // The mistake: W_V reads the vowel row (column 0) where the reference reads the consonant.
  HeadWeights vowel_first = p.reference;
  vowel_first.W_V = Matrix::Zero(2, 3);
  vowel_first.W_V(0, 0) = 1;
  for (int k = 0; k < 6; ++k) {
    const Relabeling r = derive_relabeling(kTextSecret, p, "student-" + std::to_string(k));
    const Problem v = relabeled_or_abort(p, r);
    const GradeReport report =
        grade_with_diagnosis(v, to_student_coordinates(p, r, vowel_first), 5);
    ASSERT_FALSE(report.passed);
    bool named = false;
    for (const Diagnosis& d : report.diagnosis) {
      if (d.mistake != "vowel_first") continue;
      named = true;
      EXPECT_EQ(d.hint, "Column " + student_row(r, 1) + " of W_k, not " + student_row(r, 0) + ".");
      EXPECT_EQ(d.message,
                "Output " + student_output(r, 0) + " fires when the first letter is a vowel.");
    }
    EXPECT_TRUE(named) << "student-" << k << ": vowel_first not diagnosed";
  }
}

TEST(VariantText, APlaceholderThatNamesNothingIsADefectSayingWhichThereAre) {
  nlohmann::json j = worded_problem_json();
  j["statement"] = "Row {feature:sonorant} and output {output:3} and {output:01}.";
  j["mistakes"][0]["hint"] = "Column {feature:consonant of W_k.";
  const std::vector<Defect> defects = text_defects(j);
  ASSERT_EQ(defects.size(), 4u);
  EXPECT_EQ(defects[0].field, "statement");
  EXPECT_NE(defects[0].message.find("\"{feature:sonorant}\", which names nothing here"),
            std::string::npos)
      << defects[0].message;
  EXPECT_NE(defects[0].message.find("{feature:vowel}, {feature:consonant} and {feature:start} "
                                    "and {output:1} to {output:2}"),
            std::string::npos)
      << defects[0].message;
  EXPECT_NE(defects[1].message.find("\"{output:3}\""), std::string::npos);
  EXPECT_NE(defects[2].message.find("\"{output:01}\""), std::string::npos);
  EXPECT_EQ(defects[3].field, "mistakes[0].hint");
  EXPECT_NE(defects[3].message.find("that no \"}\" closes"), std::string::npos)
      << defects[3].message;

  nlohmann::json unnamed = worded_problem_json();
  unnamed.erase("feature_names");
  const std::vector<Defect> without = text_defects(unnamed);
  ASSERT_FALSE(without.empty());
  EXPECT_EQ(without[0].field, "statement");
  EXPECT_NE(without[0].message.find("the problem has no feature_names"), std::string::npos)
      << without[0].message;
}

TEST(VariantText, TextWithPlaceholdersIsNotLintedForNamingARowByItsPlace) {
  for (const ProblemWarning& w : problem_warnings(worded_problem())) {
    EXPECT_NE(w.field, "statement") << w.message;
    EXPECT_NE(w.field.rfind("mistakes[", 0), 0u) << w.field << ": " << w.message;
  }
}

TEST(VariantText, AVectorLiteralIsWrittenInTheStudentsOrderWithItsSpacesKept) {
  const std::vector<std::size_t> swap = {1, 0};
  EXPECT_EQ(reorder_expected_source("any(consonant) ? [0, 1] : [1, 0]", swap),
            "any(consonant) ? [1, 0] : [0, 1]");
  EXPECT_EQ(reorder_expected_source("[ mean(vowel) ,mean(consonant)]", swap),
            "[ mean(consonant) ,mean(vowel)]");
  const std::vector<std::size_t> cycle = {2, 0, 1};
  EXPECT_EQ(reorder_expected_source(
                "at(1, consonant) ? [mean(vowel), (pos > 2 ? 1 : 0), at(pos - 1, vowel)] : "
                "[0, 1, 2]",
                cycle),
            "at(1, consonant) ? [at(pos - 1, vowel), mean(vowel), (pos > 2 ? 1 : 0)] : "
            "[2, 0, 1]");
  // One output, or none reordered: as written.
  EXPECT_EQ(reorder_expected_source("[count(vowel)]", std::vector<std::size_t>{0}),
            "[count(vowel)]");
  EXPECT_EQ(reorder_expected_source("any(vowel) ? [0, 1] : [1, 0]", {}),
            "any(vowel) ? [0, 1] : [1, 0]");
}

TEST(VariantText, TheStudentsExpectedComputesTheProblemsOutputsInTheirOrder) {
  const Problem& p = worded_problem();
  int swapped = 0;
  for (int k = 0; k < 12; ++k) {
    const Relabeling r = derive_relabeling(kTextSecret, p, "student-" + std::to_string(k));
    const Problem v = relabeled_or_abort(p, r);
    // The shown source parsed on its own, its values at every example position, against the
    // problem's values with the components reordered here: column j is column σ(j).
    ProblemSpec fresh = v;
    fresh.expected = nullptr;
    auto parsed = parse_expected(v.expected_source, v.classes);
    ASSERT_TRUE(std::holds_alternative<Expected>(parsed)) << v.expected_source;
    fresh.expected = std::make_shared<const Expected>(std::get<Expected>(std::move(parsed)));
    auto derived = Problem::derive_unproved(fresh, "fresh.json");
    ASSERT_TRUE(std::holds_alternative<Problem>(derived));
    const Problem& shown = std::get<Problem>(derived);
    ASSERT_EQ(shown.examples_expected().size(), p.examples_expected().size());
    for (std::size_t e = 0; e < p.examples_expected().size(); ++e) {
      const Matrix& base = p.examples_expected()[e];
      const Matrix& got = shown.examples_expected()[e];
      ASSERT_EQ(got.rows(), base.rows());
      ASSERT_EQ(got.cols(), base.cols());
      for (Eigen::Index j = 0; j < got.cols(); ++j) {
        const auto from = static_cast<Eigen::Index>(r.outputs[static_cast<std::size_t>(j)]);
        EXPECT_EQ(got.col(j), base.col(from)) << v.expected_source << ", example " << e;
      }
      EXPECT_EQ(got, v.examples_expected()[e]) << "the shown source and the graded one differ";
    }
    if (r.outputs[0] != 0) {
      ++swapped;
      EXPECT_EQ(v.expected_source, "at(1, consonant) ? [0, 1] : [0, 0]");
      EXPECT_EQ(problem_to_json(v)["expected"], "at(1, consonant) ? [0, 1] : [0, 0]");
      EXPECT_EQ(v.mistakes[0].expected_source, "at(1, vowel) ? [0, 1] : [0, 0]");
    }
  }
  EXPECT_GT(swapped, 0) << "no student of twelve had their outputs swapped";
}

}  // namespace
}  // namespace headgrader

// Check my steps (API.md §10) with the handout's worked numbers: Exercise 2 Part C/D for
// "abcce" and Exercise 3 Part C/D for "cbcce", typed as the handout prints them (4 decimals).
#include "headgrader/check_steps.h"

#include <gtest/gtest.h>

#include <string>

#include "headgrader/report.h"
#include "test_support.h"
#include "typed_decimals.h"

namespace headgrader {
namespace {

using testing::bundled;

// Exercise 2, Parts B-D: W_q = [1 1], W_k = [0 5], W_V = I; s = "abcce".
constexpr const char* kExercise2Weights =
    R"("W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "input": "abcce")";
constexpr const char* kExercise2Q = R"([[1], [1], [1], [1], [1]])";
constexpr const char* kExercise2K = R"([[0], [5], [5], [5], [0]])";
constexpr const char* kExercise2V = R"([[1, 0], [0, 1], [0, 1], [0, 1], [1, 0]])";
constexpr const char* kExercise2Scores =
    R"([[0, 5, 5, 5, 0], [0, 5, 5, 5, 0], [0, 5, 5, 5, 0], [0, 5, 5, 5, 0], [0, 5, 5, 5, 0]])";
constexpr const char* kExercise2Masked =
    R"([[0, null, null, null, null], [0, 5, null, null, null], [0, 5, 5, null, null],
        [0, 5, 5, 5, null], [0, 5, 5, 5, 0]])";
constexpr const char* kExercise2Attention =
    R"([[1, 0, 0, 0, 0], [0.0067, 0.9933, 0, 0, 0], [0.0034, 0.4983, 0.4983, 0, 0],
        [0.0022, 0.3326, 0.3326, 0.3326, 0], [0.0022, 0.3318, 0.3318, 0.3318, 0.0022]])";
constexpr const char* kExercise2Output =
    R"([[1.0000, 0], [0.0067, 0.9933], [0.0034, 0.9966], [0.0022, 0.9978], [0.0045, 0.9955]])";

std::string exercise2_body(const std::string& K, const std::string& scores,
                           const std::string& extra = "") {
  return std::string("{") + kExercise2Weights + R"(, "steps": {"Q": )" + kExercise2Q +
         R"(, "K": )" + K + R"(, "V": )" + kExercise2V + R"(, "scores": )" + scores +
         R"(, "masked_scores": )" + kExercise2Masked + R"(, "attention": )" + kExercise2Attention +
         R"(, "output": )" + kExercise2Output + "}" + extra + "}";
}

StepsReport checked(const std::string& problem, const std::string& body) {
  auto report = check_steps(bundled(problem), body);
  if (!report) {
    ADD_FAILURE() << report.error().code << ": " << report.error().message;
    return {};
  }
  return std::move(report).value();
}

Error refused(const std::string& problem, const std::string& body) {
  auto report = check_steps(bundled(problem), body);
  EXPECT_FALSE(report.ok());
  return report ? Error{} : report.error();
}

TEST(CheckSteps, HandoutExercise2PartCIsRightAtEveryStep) {
  const StepsReport report =
      checked("consonant-anywhere", exercise2_body(kExercise2K, kExercise2Scores));
  ASSERT_EQ(report.steps.size(), 7u);
  for (const StepCheck& step : report.steps) EXPECT_TRUE(step.correct) << step.name;
  EXPECT_EQ(
      steps_report_json(report),
      R"({"input":"abcce","first_wrong":null,"steps":{)"
      R"("Q":{"correct":true,"wrong_entries":[]},"K":{"correct":true,"wrong_entries":[]},)"
      R"("V":{"correct":true,"wrong_entries":[]},"scores":{"correct":true,"wrong_entries":[]},)"
      R"("masked_scores":{"correct":true,"wrong_entries":[]},)"
      R"("attention":{"correct":true,"wrong_entries":[]},)"
      R"("output":{"correct":true,"wrong_entries":[]}}})");
}

TEST(CheckSteps, HandoutExercise3PartCIsRightAtEveryStep) {
  const std::string body = R"({"W_q": [[1, 1, 0]], "W_k": [[0, 0, 5]],
    "W_V": [[0, 1, 0], [0, 0, 0]], "input": "cbcce", "steps": {
    "Q": [[1], [1], [1], [1], [1]], "K": [[5], [0], [0], [0], [0]],
    "V": [[1, 0], [1, 0], [1, 0], [1, 0], [0, 0]],
    "scores": [[5, 0, 0, 0, 0], [5, 0, 0, 0, 0], [5, 0, 0, 0, 0], [5, 0, 0, 0, 0], [5, 0, 0, 0, 0]],
    "masked_scores": [[5, null, null, null, null], [5, 0, null, null, null],
                      [5, 0, 0, null, null], [5, 0, 0, 0, null], [5, 0, 0, 0, 0]],
    "attention": [[1.0000, 0, 0, 0, 0], [0.9933, 0.0067, 0, 0, 0], [0.9867, 0.0066, 0.0066, 0, 0],
                  [0.9802, 0.0066, 0.0066, 0.0066, 0], [0.9738, 0.0066, 0.0066, 0.0066, 0.0066]],
    "output": [[1.0000, 0], [1.0000, 0], [1.0000, 0], [1.0000, 0], [0.9934, 0]]}})";
  const StepsReport report = checked("first-position", body);
  ASSERT_EQ(report.steps.size(), 7u);
  for (const StepCheck& step : report.steps) {
    EXPECT_TRUE(step.correct) << step.name;
    EXPECT_TRUE(step.wrong.empty()) << step.name;
  }
  EXPECT_EQ(report.first_wrong(), std::nullopt);
}

// A slip in K (row 2 typed 4, not 5), carried on faithfully: K is wrong once, and the scores
// computed from it are right for that K (follow-on marking), as is everything after, judged
// against the student's own scores (softmax rows of [0, 4, 5, 5, 0], computed with Python's
// math.exp and rounded to 4 decimals).
TEST(CheckSteps, ASlipInKIsMarkedOnceAndLaterStepsFollowOn) {
  const std::string body = std::string("{") + kExercise2Weights + R"(, "steps": {
    "K": [[0], [4], [5], [5], [0]],
    "scores": [[0, 4, 5, 5, 0], [0, 4, 5, 5, 0], [0, 4, 5, 5, 0], [0, 4, 5, 5, 0], [0, 4, 5, 5, 0]],
    "attention": [[1, 0, 0, 0, 0], [0.0180, 0.9820, 0, 0, 0], [0.0049, 0.2676, 0.7275, 0, 0],
                  [0.0028, 0.1549, 0.4211, 0.4211, 0], [0.0028, 0.1545, 0.4199, 0.4199, 0.0028]]}})";
  const StepsReport report = checked("consonant-anywhere", body);
  ASSERT_EQ(report.steps.size(), 3u);
  EXPECT_EQ(report.first_wrong(), "K");
  EXPECT_EQ(report.steps[0].wrong, (std::vector<std::pair<int, int>>{{2, 1}}));
  EXPECT_TRUE(report.steps[1].correct);
  EXPECT_TRUE(report.steps[2].correct) << steps_report_json(report);
}

// The same slip in K, but scores copied from the handout: the scores do not follow from the
// student's K, and exactly the column of key 2 is wrong.
TEST(CheckSteps, ScoresThatDoNotFollowFromTheTypedKAreWrongWhereTheyDiffer) {
  const StepsReport report =
      checked("consonant-anywhere", exercise2_body("[[0], [4], [5], [5], [0]]", kExercise2Scores));
  EXPECT_EQ(report.first_wrong(), "K");
  EXPECT_EQ(report.steps[3].name, "scores");
  EXPECT_EQ(report.steps[3].wrong,
            (std::vector<std::pair<int, int>>{{1, 2}, {2, 2}, {3, 2}, {4, 2}, {5, 2}}));
  // Masked scores follow the (wrong) scores the student typed: the handout's are right for
  // them, so they are marked right.
  EXPECT_TRUE(report.steps[4].correct);
}

TEST(CheckSteps, AMaskedEntryMustBeNullAndAVisibleOneMustNot) {
  const std::string body = std::string("{") + kExercise2Weights + R"(, "steps": {
    "masked_scores": [[0, 5, null, null, null], [null, 5, null, null, null], [0, 5, 5, null, null],
                      [0, 5, 5, 5, null], [0, 5, 5, 5, 0]]}})";
  const StepsReport report = checked("consonant-anywhere", body);
  EXPECT_EQ(report.first_wrong(), "masked_scores");
  EXPECT_EQ(report.steps[0].wrong, (std::vector<std::pair<int, int>>{{1, 2}, {2, 1}}));
}

TEST(CheckSteps, ANumberIsRightWhenItIsTheRightValueRoundedToItsDecimals) {
  // The rows of "abcce" are [1], [0.0067, 0.9933], [0.0034, 0.4983, 0.4983], …: 0.3326 rounded
  // to one decimal is 0.3, 0.0034 rounded to none is 0, 0.9933 rounded to none is 1; but 0 is
  // not 0.9933 rounded, nor 0.1 what 0.0022 rounds to at one decimal.
  const std::string body = std::string("{") + kExercise2Weights + R"(, "steps": {
    "attention": [[1, 0, 0, 0, 0], [0.0067, 0, 0, 0, 0], [0, 0.4983, 0.4983, 0, 0],
                  [0.0022, 0.3, 0.3, 0.3, 0], [0.0022, 0.3318, 0.3318, 0.3318, 0.1]]}})";
  const StepsReport report = checked("consonant-anywhere", body);
  EXPECT_EQ(report.steps[0].wrong, (std::vector<std::pair<int, int>>{{2, 2}, {5, 5}}));
  const std::string rounded = std::string("{") + kExercise2Weights + R"(, "steps": {
    "attention": [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0.5, 0.5, 0, 0],
                  [0.0022, 0.3, 0.3, 0.3, 0], [0, 0.3, 0.3, 0.3, 0]]}})";
  EXPECT_EQ(checked("consonant-anywhere", rounded).steps[0].wrong,
            (std::vector<std::pair<int, int>>{}));
  EXPECT_NEAR(typed_tolerance(0), 0.5, 1e-9);
  EXPECT_NEAR(typed_tolerance(-2), 0.5, 1e-9);
  EXPECT_DOUBLE_EQ(typed_tolerance(4), 1e-3);
  EXPECT_NEAR(typed_tolerance(2), 0.005, 1e-9);
}

TEST(CheckSteps, DecimalsAreCountedAsTyped) {
  EXPECT_EQ(literal_decimals("0.50"), 2);
  EXPECT_EQ(literal_decimals("3.3e-1"), 2);
  EXPECT_EQ(literal_decimals("-1.25E+1"), 1);
  EXPECT_EQ(literal_decimals("1e2"), -2);
  const TypedDecimals d = read_typed_decimals(
      R"({"input": "ab", "steps": {"Q": [[1.0], [0.125]], "K": [[null], [2e-3]]}})");
  EXPECT_EQ(d.at("Q"), (std::vector<std::vector<int>>{{1}, {3}}));
  EXPECT_EQ(d.at("K"), (std::vector<std::vector<int>>{{0}, {3}}));
}

TEST(CheckSteps, RevealAddsTheValuesEachStepShouldHaveHad) {
  const std::string body = R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]],
    "input": "ab", "reveal": true, "steps": {"K": [[0], [4]], "masked_scores": [[0, 1], [0, 4]]}})";
  const StepsReport report = checked("consonant-anywhere", body);
  EXPECT_EQ(
      steps_report_json(report),
      R"({"input":"ab","first_wrong":"K","steps":{)"
      R"("K":{"correct":false,"wrong_entries":[[2,1]],"expected":[[0],[5]]},)"
      R"("masked_scores":{"correct":false,"wrong_entries":[[1,2]],"expected":[[0,null],[0,4]]}}})");
}

TEST(CheckSteps, WithoutRevealNoValueIsShown) {
  const std::string body = R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]],
    "input": "ab", "steps": {"K": [[0], [4]]}})";
  EXPECT_EQ(
      steps_report_json(checked("consonant-anywhere", body)),
      R"({"input":"ab","first_wrong":"K","steps":{"K":{"correct":false,"wrong_entries":[[2,1]]}}})");
}

TEST(CheckSteps, AStepOfTheWrongShapeSaysWhatItShouldBe) {
  const Error error = refused("consonant-anywhere", R"({"W_q": [[1, 1]], "W_k": [[0, 5]],
    "W_V": [[1, 0], [0, 1]], "input": "abc", "steps": {"K": [[0], [5]]}})");
  EXPECT_EQ(error.code, ErrorCode::kWrongShape);
  EXPECT_EQ(error.field, "steps");
  EXPECT_EQ(error.message,
            "steps.K must be 3 × 1 (one row per letter of \"abc\", one column per row of W_k, "
            "n_q = 1); it has 2 rows");
}

TEST(CheckSteps, BadInputFieldsAreNamed) {
  const std::string weights = R"("W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]])";
  Error error = refused("consonant-anywhere", "{" + weights + R"(, "steps": {}})");
  EXPECT_EQ(error.code, ErrorCode::kMissingField);
  EXPECT_EQ(error.field, "input");
  error = refused("consonant-anywhere", "{" + weights + R"(, "input": "aB", "steps": {}})");
  EXPECT_EQ(error.code, ErrorCode::kOutOfRange);
  EXPECT_EQ(error.message,
            "input must be a string of 1 to 64 letters of the alphabet "
            "\"abcdefghijklmnopqrstuvwxyz\"; letter 2 (\"B\") is not in it");
  error = refused("consonant-anywhere", "{" + weights + R"(, "input": "ab", "steps": {"Z": []}})");
  EXPECT_EQ(error.code, ErrorCode::kUnknownField);
  EXPECT_EQ(error.field, "steps");
  error = refused("consonant-anywhere", "{" + weights + R"(, "input": "ab", "step": {}})");
  EXPECT_EQ(error.code, ErrorCode::kUnknownField);
  EXPECT_EQ(error.field, "step");
  // The weights are checked word for word as for grading.
  error = refused("consonant-anywhere",
                  R"({"W_q": [[1, 1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]],
                      "input": "ab", "steps": {}})");
  EXPECT_EQ(error.field, "W_q");
  EXPECT_EQ(error.code, ErrorCode::kWrongShape);
  // first-position has W_P with 8 columns: no longer string can be run.
  error = refused("first-position", R"({"W_q": [[1, 1, 0]], "W_k": [[0, 0, 5]],
    "W_V": [[0, 1, 0], [0, 0, 0]], "input": "abcdefghi", "steps": {}})");
  EXPECT_EQ(error.code, ErrorCode::kWrongShape);
  EXPECT_EQ(error.field, "input");
}

}  // namespace
}  // namespace headgrader

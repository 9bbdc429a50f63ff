// Submissions (API.md §5): the bodies accepted, and every way the keys, each matrix, how the
// matrices fit the problem and each other, or the optional fields can be wrong, each with its
// own code, the field as the student sent it, and a message in plain words, pinned verbatim.
// Most cases use the bundled consonant-anywhere problem (n_e = 2, n_v = 2); first-position
// has n_e = 3, and a small problem in this file gives W_V instead of asking for it. A body
// that is not well-formed JSON, or nested too deeply, is in submission_json_test.cc.
#include "headgrader/submission.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <variant>

#include "headgrader/problem.h"
#include "headgrader/report.h"
#include "submission_support.h"
#include "test_support.h"

namespace headgrader {
namespace {

using testing::bundled;
using testing::consonant_anywhere;
using testing::error_of;
using testing::kHandoutSolution;
using testing::solution_with;

// Consonant-anywhere over "ab" with W_V given: the student sends only W_q and W_k.
const Problem& value_given() {
  static const Problem problem = [] {
    auto loaded = load_problem_text(R"json({
      "id": "value-given",
      "title": "Has a consonant occurred? (W_V given)",
      "statement": "Only the query and key are yours.",
      "alphabet": "ab",
      "classes": {"vowel": "a", "consonant": "b"},
      "W_E": [[1, 0], [0, 1]],
      "submit": ["W_q", "W_k"],
      "given": {"W_V": [[1, 0], [0, 1]]},
      "expected": "any(consonant) ? [0, 1] : [1, 0]",
      "tolerance": 0.1,
      "strings": {"max_length": 3},
      "reference": {"W_q": [[1, 1]], "W_k": [[0, 5]]}
    })json",
                                    "value-given.json");
    if (!std::holds_alternative<Problem>(loaded)) {
      ADD_FAILURE() << std::get<1>(loaded).front().to_string();
      std::abort();
    }
    return std::get<Problem>(std::move(loaded));
  }();
  return problem;
}

// --- Accepted bodies -------------------------------------------------------------------------

TEST(Submission, HandoutSolutionIsAccepted) {
  auto result = parse_submission(consonant_anywhere(), kHandoutSolution);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->weights.W_k, (Matrix(1, 2) << 0, 5).finished());
  EXPECT_EQ(result->weights.W_V, Matrix::Identity(2, 2));
  EXPECT_EQ(result->max_failures, 3);  // the default
  EXPECT_FALSE(result->student.has_value());
}

TEST(Submission, UppercaseQueryAndKeyAndLowercaseValueAreTheSameNames) {
  auto result = parse_submission(consonant_anywhere(),
                                 R"({"W_Q": [[1, 1]], "W_K": [[0, 5]], "W_v": [[1, 0], [0, 1]]})");
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->weights.W_q, (Matrix(1, 2) << 1, 1).finished());
  EXPECT_EQ(result->weights.W_k, (Matrix(1, 2) << 0, 5).finished());
  EXPECT_EQ(result->weights.W_V, Matrix::Identity(2, 2));
}

TEST(Submission, StudentAndMaxFailuresAreKept) {
  auto body = Json::parse(kHandoutSolution);
  body["student"] = "ada";
  body["max_failures"] = 0;
  auto result = parse_submission(consonant_anywhere(), body.dump());
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->student, "ada");
  EXPECT_EQ(result->max_failures, 0);
}

TEST(Submission, GivenMatrixComesFromTheProblem) {
  auto result = parse_submission(value_given(), R"({"W_q": [[1, 1]], "W_k": [[0, 5]]})");
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->weights.W_V, Matrix::Identity(2, 2));
}

// --- Which keys came -------------------------------------------------------------------------

TEST(Submission, MissingMatrix) {
  EXPECT_EQ(error_of(R"({"W_q": [[1, 1]], "W_V": [[1, 0], [0, 1]]})"),
            "missing_field | W_k | W_k is missing; this problem asks for W_q, W_k and W_V");
}

TEST(Submission, UnknownKeyDiffersOnlyInCase) {
  EXPECT_EQ(error_of(R"({"w_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})"),
            "unknown_field | w_q | unknown field \"w_q\" (did you mean W_q?); this problem takes "
            "W_q, W_k and W_V, and optionally student and max_failures");
}

TEST(Submission, UnknownKey) {
  EXPECT_EQ(error_of(solution_with("W_o", "[[1]]")),
            "unknown_field | W_o | unknown field \"W_o\"; this problem takes W_q, W_k and W_V, "
            "and optionally student and max_failures");
}

TEST(Submission, EmptyKeyIsUnknownAndIsTheFieldAsSent) {
  const auto result = parse_submission(consonant_anywhere(),
                                       R"({"W_q":[[1,1]],"W_k":[[0,5]],"W_V":[[1,0],[0,1]],"":1})");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kUnknownField);
  EXPECT_TRUE(result.error().has_field());
  EXPECT_EQ(result.error().field, "");
  EXPECT_EQ(result.error().message,
            "unknown field \"\"; this problem takes W_q, W_k and W_V, and optionally student and "
            "max_failures");
  // The error body says "field": "", not null: a key is at fault, and it is the empty one.
  EXPECT_EQ(error_to_json(result.error()).dump(),
            R"({"error":{"code":"unknown_field","message":"unknown field \"\"; this problem )"
            R"(takes W_q, W_k and W_V, and optionally student and max_failures","field":""}})");
}

TEST(Submission, EmptyKeyGivenTwiceIsNamed) {
  EXPECT_EQ(error_of(R"({"": 1, "": 2})"),
            "duplicate_field | \"\" | \"\" is given twice; give each key once");
}

TEST(Submission, KeysInsideATopLevelArrayAreNotTopLevelKeys) {
  EXPECT_EQ(error_of(R"([{"W_q": 1, "W_q": 2}])"),
            "duplicate_field |  | \"W_q\" is given twice; give each key once");
}

TEST(Submission, ErrorWithoutAFieldHasANullFieldInItsBody) {
  const Error error{ErrorCode::kNotFound, "no such path", ""};
  EXPECT_FALSE(error.has_field());
  EXPECT_EQ(error_to_json(error)["error"]["field"], Json(nullptr));
}

TEST(Submission, GivenMatrixMayNotBeSent) {
  EXPECT_EQ(error_of(value_given(), kHandoutSolution),
            "unknown_field | W_V | W_V is given by this problem, not chosen by you; send only "
            "W_q and W_k");
}

TEST(Submission, SameKeyTwiceIsCaughtBeforeTheTreeKeepsTheLast) {
  EXPECT_EQ(error_of(R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]],
                         "W_q": [[9, 9]]})"),
            "duplicate_field | W_q | \"W_q\" is given twice; give each key once");
}

TEST(Submission, TwoSpellingsOfOneMatrix) {
  EXPECT_EQ(error_of(solution_with("W_Q", "[[1, 1]]")),
            "duplicate_field | W_Q | W_q and W_Q name the same matrix; send it once");
}

// --- Each matrix -----------------------------------------------------------------------------

TEST(Submission, MatrixOfTheWrongType) {
  const std::string want =
      "wrong_type | W_q | W_q must be a matrix: an array of rows, each an array of numbers, e.g. "
      "[[1, 0]]; it is ";
  EXPECT_EQ(error_of(solution_with("W_q", R"("[[1, 1]]")")), want + "a string");
  EXPECT_EQ(error_of(solution_with("W_q", "null")), want + "null");
  EXPECT_EQ(error_of(solution_with("W_q", R"({"row": [1, 1]})")), want + "an object");
  EXPECT_EQ(error_of(solution_with("W_q", "1")), want + "a number");
}

TEST(Submission, EmptyMatrix) {
  EXPECT_EQ(error_of(solution_with("W_q", "[]")),
            "wrong_shape | W_q | W_q must have at least one row; it is empty");
}

TEST(Submission, EmptyRow) {
  EXPECT_EQ(error_of(solution_with("W_q", "[[]]")),
            "wrong_shape | W_q | row 1 of W_q is empty; every row needs a number per column");
}

TEST(Submission, RowThatIsNotAnArray) {
  EXPECT_EQ(error_of(solution_with("W_q", "[1, 1]")),
            "wrong_type | W_q | row 1 of W_q must be an array of numbers; it is a number (W_q "
            "must be an array of rows, each an array of numbers, e.g. [[1, 0]])");
}

TEST(Submission, RaggedRows) {
  EXPECT_EQ(error_of(solution_with("W_V", "[[1, 0], [0]]")),
            "wrong_shape | W_V | row 2 of W_V has 1 number but row 1 has 2; all rows must be the "
            "same length");
}

TEST(Submission, EntryThatIsNotANumber) {
  EXPECT_EQ(error_of(solution_with("W_k", R"([[0, "5"]])")),
            "wrong_type | W_k | row 1, column 2 of W_k must be a number; it is a string");
}

TEST(Submission, EntryOverAMillion) {
  EXPECT_EQ(error_of(solution_with("W_k", "[[0, 1e7]]")),
            "out_of_range | W_k | row 1, column 2 of W_k is 10000000.0; entries must be at most "
            "1e6 in absolute value");
  EXPECT_EQ(error_of(solution_with("W_k", "[[0, -1000001]]")),
            "out_of_range | W_k | row 1, column 2 of W_k is -1000001; entries must be at most "
            "1e6 in absolute value");
  EXPECT_EQ(error_of(solution_with("W_k", "[[0, 1e6]]")), "accepted");
}

TEST(Submission, NumberBeyondADouble) {
  EXPECT_EQ(error_of(R"({"W_q": [[1, 1]], "W_k": [[0, 1e400]], "W_V": [[1, 0], [0, 1]]})"),
            "out_of_range | W_k | the body holds a number too large to represent, at byte 35 in "
            "\"W_k\"");
}

TEST(Submission, SixtyFiveRows) {
  std::string rows = "[[1, 1]";
  for (int r = 1; r < 65; ++r) rows += ", [1, 1]";
  rows += "]";
  EXPECT_EQ(
      error_of(R"({"W_q": )" + rows + R"(, "W_k": )" + rows + R"(, "W_V": [[1, 0], [0, 1]]})"),
      "out_of_range | W_q | W_q has 65 rows; at most 64 are allowed");
}

// --- How the matrices fit the problem and each other -----------------------------------------

TEST(Submission, ColumnsMustBeTheEmbeddingSize) {
  // The contract's own example.
  EXPECT_EQ(error_of(solution_with("W_q", "[[1, 1, 0]]")),
            "wrong_shape | W_q | W_q must have 2 columns (one per embedding feature, n_e = 2); "
            "it has 3");
}

TEST(Submission, ColumnsMustBeTheEmbeddingSizeOfAThreeFeatureProblem) {
  EXPECT_EQ(error_of(bundled("first-position"), kHandoutSolution),
            "wrong_shape | W_q | W_q must have 3 columns (one per embedding feature, n_e = 3); "
            "it has 2");
}

TEST(Submission, ColumnErrorNamesTheMatrixAsSent) {
  EXPECT_EQ(error_of(R"({"W_Q": [[1, 1]], "W_K": [[0, 5, 0]], "W_V": [[1, 0], [0, 1]]})"),
            "wrong_shape | W_K | W_K must have 2 columns (one per embedding feature, n_e = 2); "
            "it has 3");
}

TEST(Submission, QueryAndKeyRowsMustAgree) {
  EXPECT_EQ(error_of(solution_with("W_k", "[[0, 5], [0, 5]]")),
            "wrong_shape | W_k | W_k must have 1 row, as many as W_q (queries and keys share the "
            "size n_q); it has 2");
}

TEST(Submission, ValueRowsMustBeTheExpectedLength) {
  EXPECT_EQ(error_of(solution_with("W_V", "[[1, 0], [0, 1], [0, 0]]")),
            "wrong_shape | W_V | W_V must have 2 rows (one per component of the expected output, "
            "n_v = 2); it has 3");
}

// --- Optional fields -------------------------------------------------------------------------

TEST(Submission, MaxFailuresIsAWholeNumberFrom0To100) {
  const std::string want =
      " | max_failures | max_failures must be a whole number from 0 to 100; "
      "it is ";
  EXPECT_EQ(error_of(solution_with("max_failures", "-1")), "out_of_range" + want + "-1");
  EXPECT_EQ(error_of(solution_with("max_failures", "101")), "out_of_range" + want + "101");
  EXPECT_EQ(error_of(solution_with("max_failures", "2.5")), "out_of_range" + want + "2.5");
  EXPECT_EQ(error_of(solution_with("max_failures", R"("3")")), "wrong_type" + want + "a string");
  EXPECT_EQ(error_of(solution_with("max_failures", "null")), "wrong_type" + want + "null");
}

TEST(Submission, MaxFailuresWrittenAsAWholeFloatIsAccepted) {
  auto result = parse_submission(consonant_anywhere(), solution_with("max_failures", "3.0"));
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->max_failures, 3);
  auto hundred = parse_submission(consonant_anywhere(), solution_with("max_failures", "100"));
  ASSERT_TRUE(hundred.ok()) << hundred.error().message;
  EXPECT_EQ(hundred->max_failures, 100);
}

TEST(Submission, StudentMustBeAString) {
  EXPECT_EQ(error_of(solution_with("student", "42")),
            "wrong_type | student | student must be a string (a name or an id); it is a number");
  EXPECT_EQ(error_of(solution_with("student", R"({"name": "ada"})")),
            "wrong_type | student | student must be a string (a name or an id); it is an object");
}

}  // namespace
}  // namespace headgrader

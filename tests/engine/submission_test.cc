// Submissions (API.md §5): every way a body can be wrong gets its own code, the field as the
// student sent it, and a message in plain words; each pinned verbatim. Most cases use the
// bundled consonant-anywhere problem (n_e = 2, n_v = 2); first-position has n_e = 3, and a
// small problem in this file gives W_V instead of asking for it.
#include "headgrader/submission.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <variant>

#include "headgrader/problem.h"
#include "headgrader/report.h"
#include "test_support.h"

namespace headgrader {
namespace {

using testing::bundled;
using testing::kHandoutSolution;

const Problem& consonant_anywhere() { return bundled("consonant-anywhere"); }

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

// The error of parsing `body` against `problem`, as "code | field | message"; the field
// part is empty when no key is at fault and "" (two quotes) when the key at fault is "".
std::string error_of(const Problem& problem, std::string_view body) {
  auto result = parse_submission(problem, body);
  if (result.ok()) return "accepted";
  const auto& e = result.error();
  const std::string field = e.has_field() && e.field.empty() ? "\"\"" : e.field;
  return std::string(code_name(e.code)) + " | " + field + " | " + e.message;
}

std::string error_of(std::string_view body) { return error_of(consonant_anywhere(), body); }

// The solution with `key` set to the JSON text `value` (added when absent).
std::string solution_with(const std::string& key, const std::string& value) {
  auto body = Json::parse(kHandoutSolution);
  body[key] = Json::parse(value);
  return body.dump();
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

// --- The JSON itself -------------------------------------------------------------------------

TEST(Submission, InvalidJsonGivesThePositionWithoutEchoingTheBody) {
  const std::string body = R"({"W_q": [[1, 1]], "secret-token-xyz" [[0, 5]]})";
  EXPECT_EQ(error_of(body),
            "invalid_json |  | the body is not valid JSON at line 1, column 38: a key must be "
            "followed by ':'");
  EXPECT_EQ(error_of(body).find("secret-token-xyz"), std::string::npos);
}

// What a student's script or hand most often gets wrong, said in their words and pointed at.
TEST(Submission, SyntaxErrorsSayWhyInPlainWords) {
  const std::string json = "invalid_json |  | the body is not valid JSON at line 1, column ";
  const std::string no_nan =
      ": JSON has no NaN or Infinity; every number must be finite, written like 0.5 or -2";
  struct Case {
    std::string body, message;
  };
  for (const Case& c : std::vector<Case>{
           // Python's json.dumps writes these for float('nan') and float('inf').
           {R"({"W_q": [[NaN, 1]]})", json + "11" + no_nan},
           {R"({"W_q": [[Infinity, 1]]})", json + "11" + no_nan},
           {R"({"W_q": [[-Infinity, 1]]})", json + "12" + no_nan},
           {R"({"W_q": True})", json + "9: JSON writes true, false and null in lowercase (True, "
                                       "False and None are Python)"},
           {R"({'W_q': [[1, 1]]})",
            json + "2: JSON strings and keys take double quotes (\"), not single quotes"},
           {R"({"W_q": [[1, 1],]})",
            json + "17: a comma comes before this ']': JSON has no comma after the last item"},
           {R"({"W_q": [[1, 1]],})",
            json + "18: a comma comes before this '}': JSON has no comma after the last item"},
           {R"({"W_q": [[1 1]]})", json + "13: a comma is missing before this item"},
           {R"({"W_q": [[1, 1]] "W_k": [[0, 5]]})",
            json + "18: a comma is missing before this item"},
           {R"({"W_q": [[01, 1]]})",
            json + "11: JSON numbers have no leading zeros (write 7, not 07)"},
           {R"({"W_q": [[1, 1]]} x)", json + "19: more follows the end of the JSON value"},
           {R"({"W_q": [[1, 1])",
            json + "16: it ends before every bracket, brace and quote is closed"},
           {"", json + "1: it is empty"},
           {"{\"student\": \"\xff\"}", json + "14: a string holds bytes that are not UTF-8 text"},
           {"{\"student\": \"a\nb\"}",
            json + "15: a string holds a line break, a tab or another control character; inside "
                   "quotes write it as \\n, \\t or \\u00XX"},
           {"{\"student\": \"a\tb\"}",
            json + "15: a string holds a line break, a tab or another control character; inside "
                   "quotes write it as \\n, \\t or \\u00XX"},
           {R"({"student": "a\qb"})",
            json + "15: a backslash in a string starts an escape such as \\n or \\\"; write \\\\ "
                   "for a backslash itself"},
           {R"({"student": "\u12"})",
            json + "14: \\u must be followed by four hexadecimal digits, as in \\u00e9"},
           // The byte that gives the escape away is a backslash itself.
           {R"({"student": "\u12\n"})",
            json + "14: \\u must be followed by four hexadecimal digits, as in \\u00e9"},
           {R"({"student": "a\)",
            json + "15: it ends before every bracket, brace and quote is closed"},
           // What the sender wrote is never taken for the parser's reason.
           {R"({"student": "see after backslash)",
            json + "33: it ends before every bracket, brace and quote is closed"},
       }) {
    SCOPED_TRACE(c.body);
    EXPECT_EQ(error_of(c.body), c.message);
  }
}

TEST(Submission, NulByteAfterTheObjectIsNotIgnored) {
  // nlohmann's lexer would stop at the NUL and accept the object before it.
  const std::string body = std::string(kHandoutSolution) + std::string("\0junk", 5);
  EXPECT_EQ(error_of(body),
            "invalid_json |  | the body is not valid JSON at line 1, column 60: "
            "it holds a NUL byte");
}

TEST(Submission, NulByteInsideAString) {
  const std::string body = std::string("{\"student\": \"a\0b\"}", 19);
  EXPECT_EQ(error_of(body),
            "invalid_json |  | the body is not valid JSON at line 1, column 15: "
            "it holds a NUL byte");
}

TEST(Submission, BodyMustBeAnObject) {
  EXPECT_EQ(error_of("[[1, 1]]"),
            "not_an_object |  | the body must be a JSON object such as {\"W_q\": [[1, 1]], …}; "
            "it is an array");
  EXPECT_EQ(error_of(R"("W_q")"),
            "not_an_object |  | the body must be a JSON object such as {\"W_q\": [[1, 1]], …}; "
            "it is a string");
  EXPECT_EQ(error_of("42"),
            "not_an_object |  | the body must be a JSON object such as {\"W_q\": [[1, 1]], …}; "
            "it is a number");
}

// `n` arrays, one inside the other: "[[…]]".
std::string nested_arrays(std::size_t n) { return std::string(n, '[') + std::string(n, ']'); }

TEST(Submission, HundredThousandDeepNestingIsTooDeepWithoutACrash) {
  const std::string deep = nested_arrays(100000);
  EXPECT_EQ(error_of(deep), "too_deep |  | the body is nested more than 32 levels deep");
  const std::string in_field = R"({"W_q": )" + deep + "}";
  EXPECT_EQ(error_of(in_field), "too_deep | W_q | the body is nested more than 32 levels deep");
}

TEST(Submission, TooDeepNamesTheTopLevelKeyItIsUnder) {
  const std::string deep = nested_arrays(40);
  EXPECT_EQ(error_of(solution_with("student", deep)),
            "too_deep | student | the body is nested more than 32 levels deep");
  // The key whose value is being read, not an earlier one; not a key inside that value.
  EXPECT_EQ(error_of(R"({"W_q": [[1, 1]], "W_k": )" + deep + "}"),
            "too_deep | W_k | the body is nested more than 32 levels deep");
  EXPECT_EQ(error_of(R"({"student": {"name": )" + deep + "}}"),
            "too_deep | student | the body is nested more than 32 levels deep");
  std::string objects = R"({"W_q": [[1, 1]], "W_k": )";
  for (int n = 0; n < 40; ++n) objects += R"({"a": )";
  objects += "1" + std::string(40, '}') + "}";
  EXPECT_EQ(error_of(objects), "too_deep | W_k | the body is nested more than 32 levels deep");
}

TEST(Submission, TooDeepCountsTheRootObjectAsTheFirstLevel) {
  // The object is level 1, so 31 arrays under "W_q" reach 32: allowed, and then the matrix
  // itself is at fault (its first entry is an array, not a number). 32 arrays reach 33.
  EXPECT_EQ(error_of(solution_with("W_q", nested_arrays(31))).substr(0, 18), "wrong_type | W_q |");
  EXPECT_EQ(error_of(solution_with("W_q", nested_arrays(32))),
            "too_deep | W_q | the body is nested more than 32 levels deep");
}

TEST(Submission, TooDeepNamesAnEscapedKeyAsDecoded) {
  const std::string deep = nested_arrays(40);
  EXPECT_EQ(error_of(R"({"W\u005fq": )" + deep + "}"),
            "too_deep | W_q | the body is nested more than 32 levels deep");
  EXPECT_EQ(error_of(R"({"a\"b\\c\u00e9": )" + deep + "}"),
            "too_deep | a\"b\\c\u00e9 | the body is nested more than 32 levels deep");
  EXPECT_EQ(error_of(R"({"": )" + deep + "}"),
            "too_deep | \"\" | the body is nested more than 32 levels deep");
}

TEST(Submission, TooDeepOutsideAnyTopLevelKeyHasNoField) {
  const std::string deep = nested_arrays(40);
  EXPECT_EQ(error_of(deep), "too_deep |  | the body is nested more than 32 levels deep");
  // A root that is an array has no top-level keys, even when objects inside it have keys.
  EXPECT_EQ(error_of(R"([{"W_q": )" + deep + "}]"),
            "too_deep |  | the body is nested more than 32 levels deep");
}

TEST(Submission, TooDeepErrorBodyNamesTheFieldAndNullOutsideOne) {
  const std::string deep = nested_arrays(40);
  const auto in_field = parse_submission(consonant_anywhere(), R"({"W_q": )" + deep + "}");
  ASSERT_FALSE(in_field.ok());
  EXPECT_EQ(error_to_json(in_field.error())["error"]["field"], Json("W_q"));
  const auto outside = parse_submission(consonant_anywhere(), deep);
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(error_to_json(outside.error())["error"]["field"], Json(nullptr));
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

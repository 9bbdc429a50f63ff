// How messages write a limit (headgrader/limit_text.h): the texts the contract's messages have
// always said ("at most 1e6", "(1 MiB)"), now built from the constants.
#include "headgrader/limit_text.h"

#include <gtest/gtest.h>

#include <fstream>
#include <variant>

#include "headgrader/limits.h"
#include "headgrader/problem.h"
#include "headgrader/report.h"
#include "test_support.h"

namespace headgrader {
namespace {

TEST(LimitText, ANumberIsWrittenShortestWithItsExponentAsAPersonWritesIt) {
  EXPECT_EQ(number_text(1e6), "1e6");
  EXPECT_EQ(number_text(-1e6), "-1e6");
  EXPECT_EQ(number_text(1e-7), "1e-7");
  EXPECT_EQ(number_text(1e100), "1e100");
  EXPECT_EQ(number_text(1024), "1024");
  EXPECT_EQ(number_text(10000), "10000");  // as long as "1e4" plus its sign: digits win
  EXPECT_EQ(number_text(0.5), "0.5");
  EXPECT_EQ(number_text(0.001), "0.001");
  EXPECT_EQ(number_text(0), "0");
}

TEST(LimitText, ASizeIsWrittenInTheLargestWholeBinaryUnit) {
  EXPECT_EQ(bytes_text(1048576), "1 MiB");
  EXPECT_EQ(bytes_text(4 * 1048576), "4 MiB");
  EXPECT_EQ(bytes_text(16384), "16 KiB");
  EXPECT_EQ(bytes_text(1024ull * 1048576), "1 GiB");
  EXPECT_EQ(bytes_text(1536), "1536 bytes");
  EXPECT_EQ(bytes_text(1000), "1000 bytes");
  EXPECT_EQ(bytes_text(1), "1 byte");
  EXPECT_EQ(bytes_text(0), "0 bytes");
}

TEST(LimitText, TheContractsLimitsReadAsTheyAlwaysHave) {
  EXPECT_EQ(number_text(limits::kMaxAbsEntry), "1e6");  // API.md §5
  EXPECT_EQ(bytes_text(limits::kMaxBodyBytes), "1 MiB");
  EXPECT_EQ(bytes_text(limits::kMaxHeaderBytes), "16 KiB");
}

// The matrix entries' message is pinned in submission_test.cc, the body's in
// http_connection_e2e_test.cc; a problem's scale says the same bound.
TEST(LimitText, AProblemsScaleOverTheBoundIsRefusedWithTheBoundAsWritten) {
  std::ifstream in(testing::kProblemsDir + "/consonant-anywhere.json");
  Json problem = Json::parse(in);
  problem["scale"] = 2e6;
  const ProblemOrDefects loaded = load_problem_text(problem.dump(), "consonant-anywhere.json");
  ASSERT_TRUE(std::holds_alternative<std::vector<Defect>>(loaded));
  const auto& defects = std::get<std::vector<Defect>>(loaded);
  ASSERT_EQ(defects.size(), 1u);
  EXPECT_EQ(defects[0].field, "scale");
  EXPECT_EQ(defects[0].message, "must be a number of absolute value at most 1e6; it is 2000000.0");
}

}  // namespace
}  // namespace headgrader

// The two readers of a body (grader/submission_readers.h), driven by one table of rules
// (grader/submission_rules.h): the event reader takes the well-formed bodies a course sends,
// gives up on everything else, and wherever it answers, the tree reader's answer is the same
// submission. Its refusals never reach a student: the tree reader words them
// (tests/engine/submission_test.cc pins those messages through parse_submission).
#include "submission_readers.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "headgrader/limits.h"
#include "submission_rules.h"
#include "test_support.h"

namespace headgrader {
namespace {

using testing::bundled;

// Bodies that are well-formed for the 2-feature, 2-output consonant problems.
const std::vector<std::string> kWellFormed = {
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_V": [[1, 0], [0, 1]], "W_k": [[0, 5]], "W_q": [[1, 1]]})",
    R"({"W_Q": [[1, 1]], "W_K": [[0, 5]], "W_v": [[1, 0], [0, 1]]})",
    R"( { "W_q" : [ [ 1 , 1 ] ] ,
          "W_k" : [ [ 0 , 5 ] ] , "W_V" : [ [ 1 , 0 ] , [ 0 , 1 ] ] } )",
    R"({"W_q": [[1.5, -2e-3], [0, 1E2]], "W_k": [[-0.0, 5.0], [1e6, -1e6]],
        "W_V": [[0.1, 0.2], [0.30000000000000004, 1e-300]]})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "student": "s123"})",
    R"({"student": "Zoë \u00e9 \"q\"", "max_failures": 0, "W_q": [[1, 1]], "W_k": [[0, 5]],
        "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "max_failures": 100})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "max_failures": 3.0})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "max_failures": 1e1})",
    R"({"W\u005fq": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[-3, 1000000]], "W_k": [[-1000000, 5]], "W_V": [[1, 0], [0, 1]]})",
    // Each alias beside canonical names, and the bound of kMaxAbsEntry written other ways.
    R"({"W_Q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, 1]], "W_K": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_v": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1e6, -1E+6]], "W_k": [[1000000.0, -1000000.000]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "max_failures": 0.0})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "student": ""})",
};

// Bodies the tree path refuses, each for its own reason.
const std::vector<std::string> kOther = {
    "",
    "null",
    "[]",
    R"("W_q")",
    "{}",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]]})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]} x)",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]])",
    R"({"W_q": [[1, 1]], "W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, 1]], "W_Q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "w_q": 1})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "student": 7})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "student": "a", "student": "b"})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "max_failures": -1})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "max_failures": 101})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "max_failures": 2.5})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "max_failures": "3"})",
    R"({"W_q": [], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [1, 1], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, 1], [1]], "W_k": [[0, 5], [1, 1]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, [1]]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, true]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, null]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, "1"]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, 1000001]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, 1e400]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[9007199254740993, 1]], "W_k": [[0, 18446744073709551615]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, -1000000.5]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, 1000000.1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, -1e400]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1e7]]})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "max_failures": null})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "student": null})",
    R"({"W_q": [[1, 1]], "W_K": [[0, 5]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "W_P": [[0]]})",
    R"({"W_q": [[1, 1, 1]], "W_k": [[0, 5, 1]], "W_V": [[1, 0, 1], [0, 1, 1]]})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5], [1, 1]], "W_V": [[1, 0], [0, 1]]})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0]]})",
    R"({"W_q": {"0": [1, 1]}, "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
    std::string(R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})") + '\0',
};

// Rows of `n` copies of `row`, as JSON.
std::string rows_of(std::size_t n, const std::string& row) {
  std::string out = "[";
  for (std::size_t i = 0; i < n; ++i) out += (i ? ", " : "") + row;
  return out + "]";
}

void expect_agreement(const Problem& p, const std::string& body) {
  const auto events = read_submission_events(p, body);
  if (!events) return;
  const Result<Submission> tree = read_submission_tree(p, body);
  ASSERT_TRUE(tree.ok()) << p.id << ": taken without a tree, refused with one: " << body;
  EXPECT_TRUE(same_submission(*events, tree.value())) << p.id << ": " << body;
}

TEST(SubmissionReaders, WellFormedBodiesAreReadWithoutATreeAsTheTreeReadsThem) {
  for (const char* id : {"consonant-anywhere", "consonant-proportion"}) {
    for (const std::string& body : kWellFormed) {
      EXPECT_TRUE(read_submission_events(bundled(id), body).has_value()) << id << ": " << body;
      expect_agreement(bundled(id), body);
    }
  }
}

TEST(SubmissionReaders, EverythingElseIsLeftToTheTree) {
  for (const char* id : {"consonant-anywhere", "consonant-proportion"}) {
    for (const std::string& body : kOther) {
      EXPECT_FALSE(read_submission_events(bundled(id), body).has_value()) << id << ": " << body;
      EXPECT_FALSE(read_submission_tree(bundled(id), body).ok()) << id << ": " << body;
    }
  }
  // Bodies well-formed for 2 features are not for first-position's 3.
  for (const std::string& body : kWellFormed) {
    EXPECT_FALSE(read_submission_events(bundled("first-position"), body).has_value()) << body;
  }
}

TEST(SubmissionReaders, TheLimitsOnRowsAndColumnsAreTheTrees) {
  // first-position has 3 features: a W_q of 64 rows is the most the contract allows.
  const Problem& p = bundled("first-position");
  const std::string row3 = "[1, 0, 0]";
  const auto body = [&](std::size_t n_q) {
    return R"({"W_q": )" + rows_of(n_q, row3) + R"(, "W_k": )" + rows_of(n_q, row3) +
           R"(, "W_V": [[1, 0, 0], [0, 0, 1]]})";
  };
  EXPECT_TRUE(read_submission_events(p, body(64)).has_value());
  expect_agreement(p, body(64));
  EXPECT_FALSE(read_submission_events(p, body(65)).has_value());
  EXPECT_FALSE(read_submission_tree(p, body(65)).ok());
  ASSERT_EQ(limits::kMaxMatrixRows, 64u);

  // Too many columns is out_of_range for the tree reader (before the shape against n_e), and
  // refused by the event reader, in any row.
  std::string row_too_long = "[1";
  for (std::size_t c = 1; c <= limits::kMaxMatrixColumns; ++c) row_too_long += ", 0";
  row_too_long += "]";
  for (const std::string& w_q : {"[" + row_too_long + "]", "[[1, 0, 0], " + row_too_long + "]"}) {
    const std::string too_wide =
        R"({"W_q": )" + w_q + R"(, "W_k": [[1, 0, 0]], "W_V": [[1, 0, 0], [0, 0, 1]]})";
    EXPECT_FALSE(read_submission_events(p, too_wide).has_value()) << too_wide;
    const Result<Submission> tree = read_submission_tree(p, too_wide);
    ASSERT_FALSE(tree.ok());
    EXPECT_EQ(tree.error().code, ErrorCode::kOutOfRange) << tree.error().message;
  }
}

TEST(SubmissionReaders, TheTableNamesEachMatrixOnceUnderTwoNames) {
  for (std::size_t k = 0; k < kMatrixNames.size(); ++k) {
    EXPECT_STREQ(kMatrixNames[k].canonical, kWeightNames[k]);
    EXPECT_STREQ(canonical_weight_name(kMatrixNames[k].canonical), kWeightNames[k]);
    EXPECT_STREQ(canonical_weight_name(kMatrixNames[k].alias), kWeightNames[k]);
  }
  EXPECT_EQ(canonical_weight_name("w_q"), nullptr);
  EXPECT_EQ(canonical_weight_name(kStudentKey), nullptr);
  EXPECT_EQ(canonical_weight_name(kMaxFailuresKey), nullptr);
}

TEST(SubmissionReaders, SeedCorpusAndRegressionInputsAgree) {
  namespace fs = std::filesystem;
  const fs::path root = HEADGRADER_SOURCE_DIR;
  const auto& all = testing::bundled_problems().problems();
  int taken = 0;
  for (const fs::path& dir :
       {root / "fuzz/corpus/submission", root / "tests/data/fuzz-regressions/submission"}) {
    if (!fs::exists(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      const std::string input = text.str();
      if (input.empty()) continue;
      // As the fuzz harness reads it: the first byte picks the problem.
      const Problem& p = *all[static_cast<unsigned char>(input[0]) % all.size()];
      const std::string body = input.substr(1);
      taken += read_submission_events(p, body).has_value();
      expect_agreement(p, body);
    }
  }
  EXPECT_GT(taken, 0) << "no seed was read without a tree";
}

}  // namespace
}  // namespace headgrader

// The command-line program as an instructor runs it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

#include "headgrader/diagnosis.h"
#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "test_support.h"

namespace headgrader {
namespace {

struct Run {
  int exit_code;
  std::string out;
};

Run run(const std::string& args) {
  const std::string command = std::string(HEADGRADER_CLI_BIN) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = testing::private_temp_path(name);
  std::ofstream(path) << text;
  return path;
}

TEST(Cli, ValidateAcceptsTheBundledProblems) {
  const auto r = run("validate " HEADGRADER_SOURCE_DIR "/problems");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("consonant-anywhere: valid"), std::string::npos) << r.out;
}

TEST(Cli, ValidateWarnsOfAProblemThatASubmissionOfZerosPassesAndStillExitsZero) {
  std::ifstream in(HEADGRADER_SOURCE_DIR "/problems/consonant-anywhere.json");
  Json problem = Json::parse(in);
  problem["id"] = "loose";
  problem["tolerance"] = 1;  // expected is [1, 0] or [0, 1]: zeros are off by exactly 1
  const auto r = run("validate " + write_temp("loose.json", problem.dump()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out,
            "loose: valid (697 tested strings)\n"
            "loose: warning: tolerance: a submission of zeros (W_q, W_k and W_V all 0) passes "
            "all 697 tested strings: with a tolerance of 1 the grade cannot tell a solution "
            "from none; make the tolerance smaller or `expected` farther from what such a head "
            "outputs\n");
}

TEST(Cli, ValidateLintPrintsTheMistakesCaughtAsATable) {
  // The rows are worked by hand in diagnosis_test.cc (MistakesCaught).
  const auto r = run("validate --lint " HEADGRADER_SOURCE_DIR "/problems/consonant-anywhere.json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const std::string table =
      "consonant-anywhere: mistakes caught by the tests, each made on the reference:\n"
      "  mistake                 caught  by (the shortest string that fails it)\n"
      "  uniform_attention       yes     \"ab\"\n"
      "  query_key_swapped       yes     \"ab\"\n"
      "  attends_to_wrong_class  yes     \"ab\"\n"
      "  key_too_soft            yes     \"aab\"\n"
      "  value_rows_swapped      yes     \"a\"\n"
      "  value_wrong             yes     \"b\"\n"
      "consonant-anywhere: reference margin: ";
  EXPECT_NE(r.out.find(table), std::string::npos) << r.out;
}

TEST(Cli, GradeNamesAMistakeTheProblemsAuthorNamed) {
  // tests/data/mistakes/previous-letter.json names current_letter; this head scores key j
  // 10 (2ij − j²), largest at the current letter (author_mistakes_test.cc).
  const auto submission =
      write_temp("current.json",
                 R"({"W_q": [[0, 0, 20, 0], [-10, -10, 0, 0]], "W_k": [[0, 0, 1, 0], [0, 0, 0, 1]],
          "W_V": [[0, 1, 0, 0], [0, 0, 0, 0]]})");
  const auto r = run("grade --problem previous-letter --problems " HEADGRADER_SOURCE_DIR
                     "/tests/data/mistakes " +
                     submission);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  const Json diagnosis = Json::parse(r.out).at("diagnosis");
  ASSERT_EQ(diagnosis.size(), 1u) << r.out;
  EXPECT_EQ(diagnosis[0].at("mistake"), "current_letter");
  EXPECT_EQ(diagnosis[0].at("hint"),
            "make the score of key j largest at j = i - 1, not at j = i: with k_j = [j, j²], a "
            "query [2(i - 1), -1] scores 2(i - 1)j - j², which peaks at j = i - 1");
}

TEST(Cli, TheExamplePreviousLetterNamesTheCurrentLetterMistake) {
  // problems/examples/previous-letter.json (features vowel, consonant, i, i²) names
  // current_letter; this head scores key j 5 (2ij − j²), largest at the current letter.
  const auto submission =
      write_temp("current-example.json",
                 R"({"W_q": [[0, 0, 10, 0], [-5, -5, 0, 0]], "W_k": [[0, 0, 1, 0], [0, 0, 0, 1]],
          "W_V": [[0, 1, 0, 0]]})");
  const auto r = run("grade --problem previous-letter --problems " HEADGRADER_SOURCE_DIR
                     "/problems/examples " +
                     submission);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  const Json diagnosis = Json::parse(r.out).at("diagnosis");
  ASSERT_EQ(diagnosis.size(), 1u) << r.out;
  EXPECT_EQ(diagnosis[0].at("mistake"), "current_letter");
}

TEST(Cli, ValidatePrintsEveryDefectAndExitsOne) {
  const auto path = write_temp("broken.json", R"({"id": "broken", "tolerance": -1})");
  const auto r = run("validate " + path);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find(path + ": title: is missing"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(path + ": tolerance: must be a number greater than 0; it is -1"),
            std::string::npos)
      << r.out;
}

TEST(Cli, ValidateRefusesAProblemThatTestsNothing) {
  // Before, this printed "valid (0 tested strings)" and every grade scored null (0 / 0).
  const auto path = write_temp("nothing.json", R"json({
    "id": "nothing", "title": "t", "statement": "s",
    "alphabet": "ab", "classes": {"vowel": "a", "consonant": "b"},
    "W_E": [[1, 0], [0, 1]], "submit": ["W_q", "W_k", "W_V"],
    "expected": "any(consonant) ? [0, 1] : [1, 0]", "tolerance": 0.1,
    "strings": {"max_length": 3, "exhaustive_length": 0},
    "reference": {"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]}
  })json");
  const auto r = run("validate " + path);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(r.out, path +
                       ": strings: nothing would be tested: exhaustive_length is 0 and there "
                       "are no examples or random strings; set strings.exhaustive_length to "
                       "1..3 (max_length), or add strings.examples or strings.random\n");
}

TEST(Cli, GradePrintsExactlyTheServersJson) {
  const std::string body = R"({"W_q": [[1, 1]], "W_k": [[0, 2]], "W_V": [[1, 0], [0, 1]]})";
  const auto r =
      run("grade --problem consonant-anywhere --problems " HEADGRADER_SOURCE_DIR "/problems " +
          write_temp("soft.json", body));
  EXPECT_EQ(r.exit_code, 1);  // graded, failed
  const Problem& p = testing::bundled("consonant-anywhere");
  const auto submission = parse_submission(p, body);
  ASSERT_TRUE(submission.ok());
  EXPECT_EQ(r.out, report_json(p, grade_with_diagnosis(p, submission->weights, 3)) + "\n");
}

TEST(Cli, GradeTextShowsTheFailingStringAndTheAttentionMatrix) {
  const std::string body = R"({"W_q": [[1, 1]], "W_k": [[0, 2]], "W_V": [[1, 0], [0, 1]]})";
  const auto r = run("grade --text --problem consonant-anywhere --problems " HEADGRADER_SOURCE_DIR
                     "/problems " +
                     write_temp("soft.json", body));
  EXPECT_NE(r.out.find("failure 1 of"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"ab\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("attention = softmax of each row\n             a      b\n"
                       "    a        1      0\n    b   0.1192 0.8808\n"),
            std::string::npos)
      << r.out;
  // The examples' rows are marked too. At "aer" the query (q = 1) scores 0, 0 and 2 against
  // a, e and r: r gets 1 / (1 + 2e^-2) = 0.7870 of the attention, the vowels 0.2130.
  EXPECT_NE(r.out.find("example \"aeri\": fails\n"
                       "  position 1 (a): expected [1, 0], got [1, 0]\n"
                       "  position 2 (e): expected [1, 0], got [1, 0]\n"
                       "  position 3 (r): expected [0, 1], got [0.2130, 0.7870]   <- wrong\n"),
            std::string::npos)
      << r.out;
}

TEST(Cli, GradeOfAHandoutSolutionExitsZero) {
  const auto r =
      run("grade --problem first-position --problems " HEADGRADER_SOURCE_DIR "/problems " +
          write_temp("first.json", R"({"W_q": [[1, 1, 0]], "W_k": [[0, 0, 5]],
                                                 "W_V": [[0, 1, 0], [0, 0, 0]]})"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

TEST(Cli, GradeOfABadSubmissionPrintsTheErrorBody) {
  const auto r = run(
      "grade --problem consonant-anywhere --problems " HEADGRADER_SOURCE_DIR "/problems " +
      write_temp("bad.json", R"({"W_q": [[1, 1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.out,
      R"({"error":{"code":"wrong_shape","message":"W_q must have 2 columns (one per embedding feature, n_e = 2); it has 3","field":"W_q"}})"
      "\n");
}

TEST(Cli, HelpAfterACommandPrintsTheUsageAndExitsZero) {
  for (const char* args : {"--help", "validate --help", "grade --help", "grade -h"}) {
    SCOPED_TRACE(args);
    const auto r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_TRUE(r.out.starts_with("usage:\n  headgrader validate [--lint] PATH...")) << r.out;
  }
}

TEST(Cli, AnIncompleteCommandSaysWhatIsMissing) {
  const auto first_line = [](const std::string& args) {
    const auto r = run(args);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    return r.out.substr(0, r.out.find('\n'));
  };
  EXPECT_EQ(first_line("validate"), "validate needs a problem file or folder");
  EXPECT_EQ(first_line("grade submission.json"), "grade needs --problem ID");
  EXPECT_EQ(first_line("grade --problem consonant-anywhere"),
            "grade needs a submission file (or - for standard input)");
  EXPECT_EQ(first_line("grade submission.json --problem"), "--problem needs a value");
  EXPECT_EQ(first_line("grade --problem consonant-anywhere a.json b.json"),
            "unexpected argument \"b.json\"");
}

TEST(Cli, GradeOfAnUnknownProblemListsTheProblems) {
  const auto r = run("grade --problem nope --problems " HEADGRADER_SOURCE_DIR "/problems " +
                     write_temp("any.json", "{}"));
  EXPECT_EQ(r.exit_code, 2);
  std::string ids;
  for (const auto& p : testing::bundled_problems().problems()) {
    ids += (ids.empty() ? "" : ", ") + p->id;
  }
  EXPECT_EQ(r.out, R"({"error":{"code":"not_found","message":"no problem has the id \"nope\"; )"
                   R"(the problems are )" +
                       ids + R"(","field":null}})" + "\n");
}

TEST(Cli, AnUnreadableSubmissionSaysWhy) {
  const auto r = run("grade --problem consonant-anywhere /no/such/submission.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "cannot read /no/such/submission.json: No such file or directory\n");
}

}  // namespace
}  // namespace headgrader

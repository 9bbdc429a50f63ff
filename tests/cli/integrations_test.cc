// `headgrader gradescope` and `headgrader prairielearn` (API.md §12) as the platforms run
// them: a folder with the student's file in, results.json out, checked field by field
// against each platform's format (Gradescope's autograder specification; PrairieLearn's
// external grading docs), on a passing, a failing and three kinds of malformed submission.
// The counts per kind of string are recomputed here with the independent head.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "headgrader/report.h"
#include "test_support.h"

namespace headgrader {
namespace {

using testing::kHandoutSolution;
using testing::kWrongKey;

namespace fs = std::filesystem;

struct PlatformRun {
  int exit_code;
  Json results;  // null when results.json was not written
  std::string out;
};

// Runs `command` (gradescope or prairielearn) on a folder holding `files`, in a fresh folder.
PlatformRun run_platform(const std::string& command,
                         const std::vector<std::pair<std::string, std::string>>& files,
                         const std::string& extra = "") {
  static int n = 0;
  const fs::path root = testing::private_temp_path(command + std::to_string(++n));
  fs::create_directories(root / "submission");
  for (const auto& [name, text] : files) std::ofstream(root / "submission" / name) << text;
  const std::string cmd = std::string(HEADGRADER_CLI_BIN) + " " + command +
                          " --problem consonant-anywhere --problems " HEADGRADER_SOURCE_DIR
                          "/problems --submission " +
                          (root / "submission").string() + " --results " +
                          (root / "results").string() + " " + extra + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t got = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), got);
  const int status = pclose(pipe);
  PlatformRun run{WEXITSTATUS(status), nullptr, out};
  std::ifstream in(root / "results" / "results.json");
  if (in) run.results = Json::parse(in);
  return run;
}

// Per kind of tested string of consonant-anywhere, how many strings there are and fail,
// judged by the independent head against `expected` written out here.
struct KindCounts {
  std::size_t examples = 0, exhaustive = 0, random = 0;
  std::size_t examples_failed = 0, exhaustive_failed = 0, random_failed = 0;
};
bool independent_passes(const Problem& p, const HeadWeights& w, const TokenString& s) {
  const auto h = testing::independent_head(p.head, w, s);
  bool consonant = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = static_cast<char>(p.alphabet_chars[static_cast<std::size_t>(s[i])]);
    consonant = consonant || std::string("aeiou").find(c) == std::string::npos;
    const double want[2] = {consonant ? 0.0 : 1.0, consonant ? 1.0 : 0.0};
    for (int k = 0; k < 2; ++k) {
      if (!(std::fabs(h.out(static_cast<Eigen::Index>(i), k) - want[k]) <= p.tolerance))
        return false;
    }
  }
  return true;
}
KindCounts independent_counts(const HeadWeights& w) {
  const Problem& p = testing::bundled("consonant-anywhere");
  KindCounts k;
  // Every string over {a, b} up to length 8: 2 + 4 + … + 256 = 510 (the handout's count).
  for (int L = 1; L <= 8; ++L) {
    for (int bits = 0; bits < (1 << L); ++bits) {
      TokenString s;
      for (int i = 0; i < L; ++i) s.push_back((bits >> i) & 1);  // a = 0, b = 1
      ++k.exhaustive;
      k.exhaustive_failed += !independent_passes(p, w, s);
    }
  }
  // The examples none of which is over {a, b}, then the random strings.
  const std::set<std::string> examples = {"eaeia", "ccrs", "aeri", "abcce"};
  for (const auto& s : p.extra_strings()) {
    const bool example = examples.count(p.spell(s)) != 0;
    (example ? k.examples : k.random) += 1;
    (example ? k.examples_failed : k.random_failed) += !independent_passes(p, w, s);
  }
  return k;
}

HeadWeights weights(double key) {
  return {testing::rows({{1, 1}}), testing::rows({{0, key}}), testing::rows({{1, 0}, {0, 1}})};
}

// Gradescope's results.json, each field as the specification has it.
void expect_gradescope_test(const Json& t, const std::string& kind, std::size_t count,
                            std::size_t failed, double total) {
  SCOPED_TRACE(kind);
  ASSERT_TRUE(t.is_object());
  EXPECT_TRUE(t.at("name").get<std::string>().starts_with(kind + ": ")) << t.dump();
  EXPECT_NEAR(t.at("score").get<double>(), static_cast<double>(count - failed) / total, 1e-12);
  EXPECT_NEAR(t.at("max_score").get<double>(), static_cast<double>(count) / total, 1e-12);
  EXPECT_EQ(t.at("status"), failed == 0 ? "passed" : "failed");
  EXPECT_EQ(t.at("visibility"), "visible");
  const std::string output = t.at("output");
  if (failed == 0) {
    EXPECT_EQ(output, "all " + std::to_string(count) + " pass\n");
  } else {
    EXPECT_TRUE(output.starts_with(std::to_string(failed) + " of " + std::to_string(count) +
                                   " fail. The first failing string, \""))
        << output;
  }
}

TEST(Gradescope, APassingSubmissionScoresFullMarksInEveryKindOfString) {
  const auto r = run_platform("gradescope", {{"submission.json", kHandoutSolution}});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const Json& j = r.results;
  EXPECT_EQ(j.at("score"), 1);
  EXPECT_EQ(j.at("visibility"), "visible");
  EXPECT_EQ(j.at("output_format"), "text");
  const std::string output = j.at("output");
  EXPECT_TRUE(
      output.starts_with("consonant-anywhere: PASSED — 697 of 697 tested strings pass\n"
                         "margin: worst error "))
      << output;
  EXPECT_NE(output.find("How to read a failure:"), std::string::npos);
  const auto k = independent_counts(weights(5));
  ASSERT_EQ(j.at("tests").size(), 3u) << j.dump();
  expect_gradescope_test(j["tests"][0], "examples", k.examples, 0, 697);
  expect_gradescope_test(j["tests"][1], "exhaustive", k.exhaustive, 0, 697);
  expect_gradescope_test(j["tests"][2], "random", k.random, 0, 697);
  EXPECT_EQ(k.examples + k.exhaustive + k.random, 697u);
}

TEST(Gradescope, AFailingSubmissionShowsTheFirstFailingStringOfEachKindAndTheDiagnosis) {
  const auto r = run_platform("gradescope", {{"head.json", kWrongKey}}, "--points 10");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const Json& j = r.results;
  const auto k = independent_counts(weights(1));
  const std::size_t failed = k.examples_failed + k.exhaustive_failed + k.random_failed;
  EXPECT_EQ(failed, 574u);  // the README's example answer: 123 of 697 pass
  EXPECT_NEAR(j.at("score").get<double>(), 10.0 * 123 / 697, 1e-12);
  ASSERT_EQ(j.at("tests").size(), 3u);
  expect_gradescope_test(j["tests"][0], "examples", k.examples, k.examples_failed, 69.7);
  expect_gradescope_test(j["tests"][1], "exhaustive", k.exhaustive, k.exhaustive_failed, 69.7);
  expect_gradescope_test(j["tests"][2], "random", k.random, k.random_failed, 69.7);
  double sum = 0;
  for (const auto& t : j["tests"]) sum += t.at("score").get<double>();
  EXPECT_NEAR(sum, j.at("score").get<double>(), 1e-9);
  // "ab": the query (q = 1) scores 0 against a and 1 against b: b gets e / (1 + e) = 0.7311.
  EXPECT_NE(j["tests"][1].at("output").get<std::string>().find(
                "\"ab\":\n  position 1 (a): expected [1, 0], got [1, 0]\n"
                "  position 2 (b): expected [0, 1], got [0.2689, 0.7311]   <- wrong\n"),
            std::string::npos)
      << j["tests"][1].dump();
  // The examples in the problem's order: eaeia and ccrs pass; at "aer" r scores 1 against 0
  // and 0: e / (2 + e) = 0.5761.
  EXPECT_NE(j["tests"][0].at("output").get<std::string>().find(
                "\"aeri\":\n  position 1 (a): expected [1, 0], got [1, 0]\n"
                "  position 2 (e): expected [1, 0], got [1, 0]\n"
                "  position 3 (r): expected [0, 1], got [0.4239, 0.5761]   <- wrong\n"),
            std::string::npos)
      << j["tests"][0].dump();
  const std::string output = j.at("output");
  EXPECT_NE(output.find("  key_too_soft: multiplying W_k by "), std::string::npos) << output;
  EXPECT_NE(output.find("How to read a failure:"), std::string::npos);
}

TEST(Gradescope, AMalformedSubmissionScoresZeroAndSaysWhy) {
  struct Case {
    const char* what;
    std::vector<std::pair<std::string, std::string>> files;
    std::string reason;
  };
  const Case cases[] = {
      {"not JSON", {{"a.json", "{\"W_q\": [[1, 1]"}}, "a.json: "},
      {"wrong shape",
       {{"a.json", R"({"W_q": [[1, 1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})"}},
       "a.json: W_q must have 2 columns (one per embedding feature, n_e = 2); it has 3"},
      {"no file", {{"notes.txt", "hello"}}, "no .json file was submitted"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto r = run_platform("gradescope", c.files);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.results.at("score"), 0);
    EXPECT_EQ(r.results.at("tests"), Json::array());
    EXPECT_EQ(r.results.at("visibility"), "visible");
    const std::string output = r.results.at("output");
    EXPECT_TRUE(output.starts_with("Your submission could not be graded: " + c.reason)) << output;
  }
}

TEST(Gradescope, TheFirstJsonFileByNameIsTheSubmission) {
  const auto r = run_platform("gradescope", {{"b.json", "not json"}, {"a.json", kHandoutSolution}});
  EXPECT_EQ(r.results.at("score"), 1) << r.results.dump();
}

TEST(PrairieLearn, APassingSubmissionIsGradableWithScoreOne) {
  const auto r = run_platform("prairielearn", {{"submission.json", kHandoutSolution}});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const Json& j = r.results;
  EXPECT_EQ(j.at("gradable"), true);
  EXPECT_EQ(j.at("score"), 1);
  EXPECT_EQ(j.at("message"), "Passed: 697 of 697 tested strings pass.");
  EXPECT_TRUE(j.at("output").get<std::string>().starts_with("margin: worst error "));
  const auto k = independent_counts(weights(5));
  ASSERT_EQ(j.at("tests").size(), 3u);
  const std::size_t counts[] = {k.examples, k.exhaustive, k.random};
  const char* names[] = {"examples", "exhaustive", "random"};
  for (int i = 0; i < 3; ++i) {
    const Json& t = j["tests"][i];
    EXPECT_EQ(t.at("name"), names[i]);
    EXPECT_EQ(t.at("points"), counts[i]);
    EXPECT_EQ(t.at("max_points"), counts[i]);
    EXPECT_EQ(t.at("message"), "all " + std::to_string(counts[i]) + " pass");
    EXPECT_EQ(t.at("output"), "");
    EXPECT_TRUE(t.at("description").is_string());
  }
}

TEST(PrairieLearn, AFailingSubmissionScoresItsShareOfPassingStrings) {
  const auto r = run_platform("prairielearn", {{"submission.json", kWrongKey}});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const Json& j = r.results;
  EXPECT_EQ(j.at("gradable"), true);
  EXPECT_EQ(j.at("score").get<double>(), 123.0 / 697);
  EXPECT_EQ(j.at("message"), "Failed: 123 of 697 tested strings pass.");
  const auto k = independent_counts(weights(1));
  const std::size_t counts[] = {k.examples, k.exhaustive, k.random};
  const std::size_t failed[] = {k.examples_failed, k.exhaustive_failed, k.random_failed};
  for (int i = 0; i < 3; ++i) {
    const Json& t = j["tests"][i];
    EXPECT_EQ(t.at("points"), counts[i] - failed[i]);
    EXPECT_EQ(t.at("max_points"), counts[i]);
    EXPECT_EQ(t.at("message"),
              std::to_string(failed[i]) + " of " + std::to_string(counts[i]) + " fail");
    EXPECT_TRUE(t.at("output").get<std::string>().starts_with("The first failing string, \""));
  }
  EXPECT_NE(j.at("output").get<std::string>().find("key_too_soft"), std::string::npos);
}

TEST(PrairieLearn, AMalformedSubmissionIsNotGradableAndSaysWhy) {
  const auto r = run_platform(
      "prairielearn",
      {{"s.json", R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "W_x": 1})"}});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const Json& j = r.results;
  EXPECT_EQ(j.at("gradable"), false);
  EXPECT_FALSE(j.contains("score"));
  ASSERT_EQ(j.at("format_errors").size(), 1u);
  const std::string reason = j["format_errors"][0];
  EXPECT_TRUE(reason.starts_with("s.json: ")) << reason;
  EXPECT_NE(reason.find("W_x"), std::string::npos) << reason;
  EXPECT_EQ(j.at("message"), "Your submission could not be graded: " + reason);
  EXPECT_EQ(j.at("tests"), Json::array());
}

TEST(PlatformCommands, AnUnknownProblemIsTheInstructorsErrorExitTwo) {
  const fs::path root = testing::private_temp_path("unknown-problem");
  const std::string cmd = std::string(HEADGRADER_CLI_BIN) +
                          " gradescope --problem nope --problems " HEADGRADER_SOURCE_DIR
                          "/problems --submission " +
                          root.string() + " --results " + root.string() + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  std::string out;
  while (std::size_t got = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), got);
  EXPECT_EQ(WEXITSTATUS(pclose(pipe)), 2);
  EXPECT_NE(out.find("no problem has the id \"nope\""), std::string::npos) << out;
}

}  // namespace
}  // namespace headgrader

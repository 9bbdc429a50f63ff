// headgrader solve and the obstacles (API.md §14): heads found for every bundled, example and
// test-suite problem, judged by grade(); not found with the obstacle proved for problems that
// no head can pass; the obstacles' boundaries at the tolerance; determinism; --write.
#include "headgrader/solve.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "headgrader/grade.h"
#include "headgrader/obstacles.h"
#include "obstacle_lp.h"
#include "test_support.h"

namespace headgrader {
namespace {

namespace fs = std::filesystem;

std::string file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream body;
  body << in.rdbuf();
  return body.str();
}

Problem to_solve(const std::string& text, const std::string& name) {
  ProblemOrDefects loaded = load_problem_to_solve(text, name);
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    for (const auto& d : *defects) ADD_FAILURE() << d.to_string();
    std::abort();
  }
  return std::get<Problem>(std::move(loaded));
}

Problem to_solve(const nlohmann::json& j) {
  return to_solve(j.dump(), j["id"].get<std::string>() + ".json");
}

// Solves `text` with its reference removed, and checks what is found with a grade of its own.
void expect_solved(const std::string& text, const std::string& name, int n_q = 0) {
  nlohmann::json j = nlohmann::json::parse(text);
  j.erase("reference");
  const Problem p = to_solve(j.dump(), name);
  SolveOptions options;
  options.n_q = n_q;
  const SolveResult result = solve_problem(p, options);
  ASSERT_TRUE(result.found) << name << ": " << solve_json(p, result);
  EXPECT_TRUE(grade(p, result.head, 1).passed) << name;
  EXPECT_TRUE(result.obstacles.empty()) << name;
  if (n_q > 0) {
    EXPECT_EQ(result.head.W_q.rows(), n_q) << name;
  }
}

std::vector<fs::path> json_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(Solve, FindsAHeadTheGraderPassesForEveryBundledProblemWithOneQueryRow) {
  for (const fs::path& file : json_files(testing::kProblemsDir)) {
    expect_solved(file_text(file), file.filename().string(), 1);
  }
}

TEST(Solve, FindsAHeadForEveryExampleProblem) {
  for (const fs::path& file : json_files(testing::kProblemsDir + "/examples")) {
    expect_solved(file_text(file), file.filename().string());
  }
}

TEST(Solve, FindsAHeadForTheTestSuitesProblemsWithTheirReferenceRemoved) {
  for (const fs::path& file : json_files(HEADGRADER_SOURCE_DIR "/tests/data/exhaustive")) {
    expect_solved(file_text(file), file.filename().string(), 1);
  }
  expect_solved(testing::previous_letter_problem(6).dump(), "previous-6.json", 2);
  expect_solved(testing::prefix_by_prefix_problem("by-prefix", 6).dump(), "by-prefix.json", 1);
}

TEST(Solve, TheSameFileGivesTheSameAnswerByteForByte) {
  const std::string text = file_text(testing::kProblemsDir + "/first-position.json");
  const Problem p = to_solve(text, "first-position.json");
  const std::string first = solve_json(p, solve_problem(p, {}));
  const std::string second = solve_json(to_solve(text, "first-position.json"),
                                        solve_problem(to_solve(text, "first-position.json"), {}));
  EXPECT_EQ(first, second);
  EXPECT_NE(first.find("\"found\":true"), std::string::npos) << first;
}

// --- position_one ----------------------------------------------------------------------------

// Letters a, b, c with embeddings (1, 0), (0, 1) and (1, 1): whatever W_V is, its value for c
// is the sum of those for a and b. expected is(cc) asks 0, 0 and 1: every W_V misses one by
// at least 1/3 (w = (1/3, 1/3) misses each by exactly 1/3).
nlohmann::json tied_letters_problem(double tolerance) {
  return {{"id", "tied"},
          {"title", "t"},
          {"statement", "s"},
          {"alphabet", "abc"},
          {"classes", {{"cc", "c"}}},
          {"W_E", {{1, 0, 1}, {0, 1, 1}}},
          {"submit", {"W_q", "W_k", "W_V"}},
          {"expected", "is(cc)"},
          {"tolerance", tolerance},
          {"strings", {{"max_length", 3}}},
          {"reference", {{"W_q", {{0, 0}}}, {"W_k", {{0, 0}}}, {"W_V", {{0, 0}}}}}};
}

TEST(Obstacles, PositionOneIsProvedWhenNoValueMapFitsTheFirstLetters) {
  const std::vector<Obstacle> found = find_obstacles(to_solve(tied_letters_problem(0.3)));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "position_one");
  EXPECT_EQ(found[0].input, (TokenString{0}));
  EXPECT_EQ(found[0].position, 1);
  EXPECT_NE(found[0].message.find("\"a\", \"b\" and \"c\""), std::string::npos) << found[0].message;
  EXPECT_NE(found[0].message.find("0.333333"), std::string::npos) << found[0].message;
}

TEST(Obstacles, PositionOneIsNotReportedWhereTheToleranceJustAdmitsTheTarget) {
  EXPECT_TRUE(find_obstacles(to_solve(tied_letters_problem(1.0 / 3))).empty());
  EXPECT_EQ(find_obstacles(to_solve(tied_letters_problem(1.0 / 3 - 1e-5))).size(), 1u);
}

TEST(Obstacles, AFileWithoutAReferenceStillHasItsObstaclesProvedAtLoad) {
  nlohmann::json unsolvable = tied_letters_problem(0.3);
  unsolvable.erase("reference");
  const auto loaded = load_problem_text(unsolvable.dump(), "tied.json");
  const auto* defects = std::get_if<std::vector<Defect>>(&loaded);
  ASSERT_NE(defects, nullptr);
  ASSERT_EQ(defects->size(), 2u);
  EXPECT_NE((*defects)[0].message.find("run headgrader solve tied.json --write"), std::string::npos)
      << (*defects)[0].message;
  EXPECT_EQ((*defects)[1].field, "expected");
  EXPECT_EQ((*defects)[1].kind, "position_one");
  // A solvable file without one has only the missing reference to say.
  nlohmann::json solvable = tied_letters_problem(1.0 / 3);
  solvable.erase("reference");
  const auto loaded_solvable = load_problem_text(solvable.dump(), "tied.json");
  ASSERT_TRUE(std::holds_alternative<std::vector<Defect>>(loaded_solvable));
  EXPECT_EQ(std::get<std::vector<Defect>>(loaded_solvable).size(), 1u);
}

TEST(Obstacles, TheLinearFitsLeastErrorIsTheHandWorkedOne) {
  Matrix points(2, 3);
  points << 1, 0, 1, 0, 1, 1;
  EXPECT_NEAR(best_linear_fit_error(points, Eigen::Vector3d(0, 0, 1)), 1.0 / 3, 1e-12);
  EXPECT_NEAR(best_linear_fit_error(points, Eigen::Vector3d(2, 3, 5)), 0, 1e-12);
  Matrix values(2, 2);
  values << 1, 0, 0, 1;
  EXPECT_NEAR(distance_to_mixtures(values, Eigen::Vector2d(1, 1)), 0.5, 1e-12);
  EXPECT_NEAR(distance_to_mixtures(values, Eigen::Vector2d(0.25, 0.75)), 0, 1e-12);
  EXPECT_NEAR(distance_to_mixtures(values, Eigen::Vector2d(2, 0)), 1, 1e-12);
}

TEST(Obstacles, PositionOneWithAGivenValueMatrixNamesTheLetterItGetsWrong) {
  nlohmann::json j = testing::bundled_json("consonant-anywhere");
  j["submit"] = {"W_q", "W_k"};
  j["given"] = {{"W_V", {{0, 1}, {1, 0}}}};  // the rows the wrong way round
  j["reference"].erase("W_V");
  const std::vector<Obstacle> found = find_obstacles(to_solve(j));
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].kind, "position_one");
  EXPECT_EQ(found[0].position, 1);
  EXPECT_NE(found[0].message.find("the given W_V gives [0, 1] for \"a\" where expected is [1, 0]"),
            std::string::npos)
      << found[0].message;
}

// --- outside_values --------------------------------------------------------------------------

// W_V given as the identity on the vowel and consonant features: a's value is [1, 0], b's
// [0, 1]. Once both have occurred, expected is [1, 1]: the closest mixture, [0.5, 0.5], is
// 0.5 off, although each component alone is within the values' range.
nlohmann::json both_at_once_problem(double tolerance) {
  nlohmann::json j = testing::bundled_json("consonant-anywhere");
  j["submit"] = {"W_q", "W_k"};
  j["given"] = {{"W_V", {{1, 0}, {0, 1}}}};
  j["reference"].erase("W_V");
  j["expected"] = "any(vowel) and any(consonant) ? [1, 1] : [is(vowel), is(consonant)]";
  j["tolerance"] = tolerance;
  j["strings"] = {{"max_length", 3}};
  return j;
}

TEST(Obstacles, OutsideValuesIsProvedForARowNoMixtureOfTheValuesReaches) {
  const std::vector<Obstacle> found = find_obstacles(to_solve(both_at_once_problem(0.4)));
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].kind, "outside_values");
  EXPECT_EQ(found[0].input, (TokenString{0, 1}));  // "ab", the shortest
  EXPECT_EQ(found[0].position, 2);
  EXPECT_NE(found[0].message.find("here [1, 0] and [0, 1], and the closest mixture is 0.5 off"),
            std::string::npos)
      << found[0].message;
}

TEST(Obstacles, OutsideValuesIsNotReportedWhereTheToleranceJustAdmitsTheTarget) {
  EXPECT_TRUE(find_obstacles(to_solve(both_at_once_problem(0.5))).empty());
  EXPECT_FALSE(find_obstacles(to_solve(both_at_once_problem(0.5 - 1e-5))).empty());
}

TEST(Obstacles, NoneForTheBundledAndExampleProblems) {
  for (const auto& dir : {testing::kProblemsDir, testing::kProblemsDir + "/examples"}) {
    for (const fs::path& file : json_files(dir)) {
      EXPECT_TRUE(find_obstacles(to_solve(file_text(file), file.filename().string())).empty())
          << file;
    }
  }
}

TEST(Solve, NotFoundNamesTheBestHeadItsFailuresAndTheObstacles) {
  const Problem p = to_solve(both_at_once_problem(0.4));
  SolveOptions options;
  options.n_q = 1;
  const SolveResult result = solve_problem(p, options);
  EXPECT_FALSE(result.found);
  const auto answer = nlohmann::json::parse(solve_json(p, result));
  EXPECT_EQ(answer["found"], false);
  EXPECT_TRUE(answer["best"].contains("W_q") && !answer["best"].contains("W_V")) << answer;
  EXPECT_LT(answer["score"].get<double>(), 1);
  EXPECT_FALSE(answer["failing"].empty());
  ASSERT_FALSE(answer["obstacles"].empty());
  EXPECT_EQ(answer["obstacles"][0]["kind"], "outside_values");
  EXPECT_EQ(answer["obstacles"][0]["input"], "ab");
  EXPECT_EQ(answer["obstacles"][0]["position"], 2);
}

TEST(Obstacles, LoadingAProblemWhoseReferenceFailsNamesThemAsDefectsOfExpected) {
  nlohmann::json j = both_at_once_problem(0.4);
  ProblemOrDefects loaded = load_problem_text(j.dump(), "consonant-anywhere.json");
  ASSERT_TRUE(std::holds_alternative<std::vector<Defect>>(loaded));
  const auto& defects = std::get<std::vector<Defect>>(loaded);
  const auto obstacle =
      std::find_if(defects.begin(), defects.end(), [](const Defect& d) { return !d.kind.empty(); });
  ASSERT_NE(obstacle, defects.end());
  EXPECT_EQ(obstacle->field, "expected");
  EXPECT_EQ(obstacle->kind, "outside_values");
  EXPECT_EQ(obstacle->input, "ab");
  EXPECT_EQ(obstacle->position, 2);
}

// --- --write ---------------------------------------------------------------------------------

// `text` without its top-level "reference" member (key, value and the comma before it).
std::string without_reference(const std::string& text) {
  const auto key = text.find("\"reference\"");
  if (key == std::string::npos) return text;
  const auto comma = text.rfind(',', key);
  std::size_t depth = 0, end = text.find('{', key);
  for (; end < text.size(); ++end) {
    if (text[end] == '{') ++depth;
    if (text[end] == '}' && --depth == 0) break;
  }
  return text.substr(0, comma) + text.substr(end + 1);
}

TEST(SolveWrite, ReplacesTheReferenceAndKeepsEveryOtherByte) {
  const std::string text = file_text(testing::kProblemsDir + "/first-position.json");
  const Problem p = to_solve(text, "first-position.json");
  const SolveResult result = solve_problem(p, {});
  ASSERT_TRUE(result.found);
  const std::optional<std::string> written = text_with_reference(text, p, result.head);
  ASSERT_TRUE(written);
  EXPECT_EQ(without_reference(*written), without_reference(text));
  EXPECT_NE(*written, text);
  ProblemOrDefects loaded = load_problem_text(*written, "first-position.json");
  EXPECT_TRUE(std::holds_alternative<Problem>(loaded));
}

TEST(SolveWrite, AddsAReferenceToAFileThatHasNone) {
  const std::string text =
      without_reference(file_text(testing::kProblemsDir + "/consonant-anywhere.json"));
  ASSERT_EQ(text.find("\"reference\""), std::string::npos);
  const Problem p = to_solve(text, "consonant-anywhere.json");
  const SolveResult result = solve_problem(p, {});
  ASSERT_TRUE(result.found);
  const std::optional<std::string> written = text_with_reference(text, p, result.head);
  ASSERT_TRUE(written);
  EXPECT_TRUE(written->starts_with(text.substr(0, text.find_last_not_of(" \n}") + 1)))
      << "the file's bytes up to its last value come first, unchanged";
  EXPECT_EQ(without_reference(*written), text);
  EXPECT_TRUE(
      std::holds_alternative<Problem>(load_problem_text(*written, "consonant-anywhere.json")));
}

std::pair<int, std::string> run_cli(const std::string& args) {
  const std::string command = std::string(HEADGRADER_CLI_BIN) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

TEST(SolveCommand, WriteLeavesAFileThatValidatesAndNoTemporaryFileBeside) {
  const fs::path dir = testing::private_temp_path("solve-write");
  fs::create_directories(dir);
  const std::string original =
      without_reference(file_text(testing::kProblemsDir + "/consonant-anywhere.json"));
  const fs::path file = dir / "consonant-anywhere.json";
  std::ofstream(file, std::ios::binary) << original;
  const auto [validate_code, validate_out] = run_cli("validate " + file.string());
  EXPECT_EQ(validate_code, 1);
  EXPECT_NE(validate_out.find("run headgrader solve " + file.string() + " --write"),
            std::string::npos)
      << validate_out;
  const auto [code, out] = run_cli("solve " + file.string() + " --write");
  EXPECT_EQ(code, 0) << out;
  EXPECT_EQ(out.rfind("{\"found\":true,\"head\":{\"W_q\":", 0), 0u) << out;
  EXPECT_EQ(without_reference(file_text(file)), original);
  EXPECT_EQ(run_cli("validate " + file.string()).first, 0);
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1u);
  // The answer printed is the one solve_problem gives in process, byte for byte.
  const Problem p = to_solve(original, file.string());
  EXPECT_EQ(out, solve_json(p, solve_problem(p, {})) + "\n");
}

TEST(SolveCommand, NotFoundExitsOneAndAWrongCommandTwo) {
  const fs::path dir = testing::private_temp_path("solve-unsolvable");
  fs::create_directories(dir);
  const fs::path file = dir / "tied.json";
  std::ofstream(file) << tied_letters_problem(0.3).dump();
  const std::string before = file_text(file);
  const auto [code, out] = run_cli("solve " + file.string() + " --n-q 1 --write");
  EXPECT_EQ(code, 1) << out;
  EXPECT_NE(out.find("\"kind\":\"position_one\""), std::string::npos) << out;
  EXPECT_EQ(file_text(file), before);
  EXPECT_EQ(run_cli("solve " + file.string() + " --n-q 0").first, 2);
  EXPECT_EQ(run_cli("solve " + file.string() + " --seconds").first, 2);
  EXPECT_EQ(run_cli("solve").first, 2);
}

}  // namespace
}  // namespace headgrader

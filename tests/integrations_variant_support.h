// Shared by the tests of `headgrader gradescope` and `headgrader prairielearn` grading each
// student's variant (tests/cli/integrations_variant_test.cc, integrations_variant_platform_test.cc;
// API.md §12, §15): a problem folder with `variants` and a pool made here with a fixed secret,
// each student's variant and the reference transformed to it entry by entry from the variant
// id's definition (not by the engine's code), and a run of the real binary as the platforms
// run it, which checks that the secret's bytes are in no output.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "headgrader/problem.h"
#include "headgrader/report.h"
#include "headgrader/variant.h"
#include "test_support.h"
#include "variant_id_support.h"

namespace headgrader::integrations_variant {

namespace fs = std::filesystem;
using variant_testing::read_variant_id;

// The autograder's secret, as an instructor writes it (a final line break is not part of it).
inline const std::string kSecret = "the autograder's own variant secret, 32+ bytes";
inline constexpr double kScales[] = {1.0, 2.0};
inline const std::string kMember = "consonant-anywhere";
inline const std::string kOtherMember = "consonant-again";
inline const std::string kPool = "consonant-pool";

inline void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

inline std::string read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The handout's Exercise 2 with every relabeling on, under `id`.
inline Json variant_problem(const std::string& id) {
  Json file = testing::bundled_json("consonant-anywhere");
  file["id"] = id;
  file["statement"] =
      "Row {feature:consonant} of W_E is the consonant feature; output {output:2} is 1 once a "
      "consonant has occurred.";
  file["feature_names"] = {"vowel", "consonant"};
  file["variants"] = {
      {"permute_features", true}, {"permute_outputs", true}, {"feature_scales", {1, 2}}};
  return file;
}

// A folder of two such problems, a pool of both, and the secret: made once per process.
struct Course {
  fs::path root = testing::private_temp_path("platform-variants");
  fs::path problems = root / "problems";
  fs::path secret = root / "variant-secret";
  Json file = variant_problem(kMember);
  ProblemSet set;
  Course() : set(load()) {}
  ProblemSet load() {
    fs::create_directories(problems);
    testing::write_problem(problems, file);
    Json other = variant_problem(kOtherMember);
    other["title"] = "Has a consonant occurred? Once more";
    testing::write_problem(problems, other);
    write_file(
        problems / (kPool + ".json"),
        Json{{"id", kPool}, {"title", "A consonant"}, {"pool", {kMember, kOtherMember}}}.dump());
    write_file(secret, kSecret + "\n");
    auto loaded = ProblemSet::load(problems);
    if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
      ADD_FAILURE() << defects->front().to_string();
      std::abort();
    }
    return std::get<ProblemSet>(std::move(loaded));
  }
};
inline const Course& course() {
  static const Course c;
  return c;
}

// The variant the server would give `student` of `problem`.
inline std::string variant_of(const std::string& problem, const std::string& student) {
  return variant_id(derive_relabeling(kSecret, *course().set.find(problem), student));
}

// The reference in the student's coordinates, computed by the test (variant_id_support.h).
inline std::string student_head(const std::string& variant) {
  return variant_testing::reference_in_student_coordinates(course().file["reference"],
                                                           read_variant_id(variant), kScales)
      .dump();
}

// Students whose variants of `problem` order the outputs differently, so that each one's
// head answers the other's variant with its outputs swapped. `name(i)` makes candidates.
template <typename Name>
inline std::pair<std::string, std::string> two_students(const std::string& problem, Name name) {
  std::string first;
  for (int i = 0; i < 64; ++i) {
    const std::string student = name(i);
    if (first.empty()) {
      first = student;
    } else if (read_variant_id(variant_of(problem, student)).outputs !=
               read_variant_id(variant_of(problem, first)).outputs) {
      return {first, student};
    }
  }
  ADD_FAILURE() << "no two students with different outputs' orders";
  return {first, first};
}
inline std::string email(int i) { return "student" + std::to_string(i) + "@example.edu"; }

struct Run {
  int exit_code = -1;
  Json results;        // null when results.json was not written
  std::string text;    // results.json as written
  std::string out;     // stdout and stderr
  std::string output;  // results' "output" (Gradescope's and PrairieLearn's)
};

// Runs `command` on a fresh folder holding the student's `submission` (as submission.json) and,
// when given, the platform's file `platform_file` (written as `platform_name` in the folder and
// passed with `platform_flag`), with the extra arguments `extra`.
inline Run run(const std::string& command, const std::string& submission, const std::string& extra,
               const std::string& platform_flag = "", const std::string& platform_name = "",
               const std::string& platform_file = "") {
  static int n = 0;
  const fs::path root = testing::private_temp_path("platform-variant-run-" + std::to_string(++n));
  fs::create_directories(root / "submission");
  write_file(root / "submission" / "submission.json", submission);
  std::string cmd = std::string(HEADGRADER_CLI_BIN) + " " + command + " --problems " +
                    course().problems.string() + " --submission " + (root / "submission").string() +
                    " --results " + (root / "results").string() + " " + extra;
  if (!platform_flag.empty()) {
    if (!platform_file.empty()) write_file(root / platform_name, platform_file);
    cmd += " " + platform_flag + " " + (root / platform_name).string();
  }
  cmd += " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  Run r;
  std::array<char, 4096> buf;
  while (std::size_t got = std::fread(buf.data(), 1, buf.size(), pipe)) {
    r.out.append(buf.data(), got);
  }
  r.exit_code = WEXITSTATUS(pclose(pipe));
  if (fs::exists(root / "results" / "results.json")) {
    r.text = read_whole(root / "results" / "results.json");
    r.results = Json::parse(r.text);
    if (r.results.contains("output")) r.output = r.results["output"];
  }
  // The secret travels with the autograder but never into what the student or the log sees.
  EXPECT_EQ(r.text.find(kSecret), std::string::npos) << r.text;
  EXPECT_EQ(r.out.find(kSecret), std::string::npos) << r.out;
  return r;
}

inline std::string secret_flag() { return "--variant-secret " + course().secret.string(); }
inline std::string metadata_of(const std::string& email) {
  return Json{{"id", 1},
              {"users", {{{"email", email}, {"id", 7}, {"name", "A Student"}}}},
              {"assignment", {{"title", "Week 3"}}}}
      .dump();
}
inline std::string data_of(const Json& seed) {
  return Json{{"params", Json::object()}, {"variant_seed", seed}, {"submitted_answers", {}}}.dump();
}

}  // namespace headgrader::integrations_variant

// `headgrader gradescope` and `headgrader prairielearn` grading each student's variant (API.md
// §12, §15) as the platforms run them: the real binary, a problem folder with `variants` made
// here, a fixed secret, the student named by Gradescope's submission_metadata.json,
// PrairieLearn's data.json or --student. Each student passes with the reference transformed
// here to their variant (entry by entry from the variant id's definition, not by the engine's
// code) and fails with another student's; a pool gives each the member pool_member draws, as
// the server does; every bad secret or platform file is refused naming the file, the field and
// the reason, with no results; and the secret's bytes are in no output.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "headgrader/pool.h"
#include "headgrader/report.h"
#include "headgrader/variant.h"
#include "test_support.h"

namespace headgrader::integrations_variant {
namespace {

namespace fs = std::filesystem;

// The autograder's secret, as an instructor writes it (a final line break is not part of it).
const std::string kSecret = "the autograder's own variant secret, 32+ bytes";
constexpr double kScales[] = {1.0, 2.0};
const std::string kMember = "consonant-anywhere";
const std::string kOtherMember = "consonant-again";
const std::string kPool = "consonant-pool";

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The handout's Exercise 2 with every relabeling on, under `id`.
Json variant_problem(const std::string& id) {
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
const Course& course() {
  static const Course c;
  return c;
}

// A variant id read by its definition: "f" π, "s" scale indices, "o" σ, 0-based, "."-joined.
struct Ids {
  std::vector<int> features, scales, outputs;
};
Ids read_id(const std::string& id) {
  Ids r;
  std::stringstream parts(id);
  for (std::string part; std::getline(parts, part, '-');) {
    std::vector<int>& list = part[0] == 'f' ? r.features : part[0] == 's' ? r.scales : r.outputs;
    std::stringstream numbers(part.substr(1));
    for (std::string n; std::getline(numbers, n, '.');) list.push_back(std::stoi(n));
  }
  return r;
}

// The variant the server would give `student` of `problem`.
std::string variant_of(const std::string& problem, const std::string& student) {
  return variant_id(derive_relabeling(kSecret, *course().set.find(problem), student));
}

// The reference in the student's coordinates, entry by entry: column i of W_q and W_k is the
// problem's column π(i) divided by s_i; W_V's row j is the problem's row σ(j), same columns.
std::string student_head(const std::string& variant) {
  const Ids r = read_id(variant);
  const Json& reference = course().file["reference"];
  const auto columns = [&](const Json& m) {
    Json out = Json::array();
    for (const Json& row : m) {
      Json new_row = Json::array();
      for (std::size_t i = 0; i < r.features.size(); ++i) {
        new_row.push_back(row[r.features[i]].get<double>() / kScales[r.scales[i]]);
      }
      out.push_back(new_row);
    }
    return out;
  };
  Json rows_reordered = Json::array();
  for (const int j : r.outputs) rows_reordered.push_back(reference["W_V"][j]);
  return Json{{"W_q", columns(reference["W_q"])},
              {"W_k", columns(reference["W_k"])},
              {"W_V", columns(rows_reordered)}}
      .dump();
}

// Students whose variants of `problem` order the outputs differently, so that each one's
// head answers the other's variant with its outputs swapped. `name(i)` makes candidates.
template <typename Name>
std::pair<std::string, std::string> two_students(const std::string& problem, Name name) {
  std::string first;
  for (int i = 0; i < 64; ++i) {
    const std::string student = name(i);
    if (first.empty()) {
      first = student;
    } else if (read_id(variant_of(problem, student)).outputs !=
               read_id(variant_of(problem, first)).outputs) {
      return {first, student};
    }
  }
  ADD_FAILURE() << "no two students with different outputs' orders";
  return {first, first};
}
std::string email(int i) { return "student" + std::to_string(i) + "@example.edu"; }

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
Run run(const std::string& command, const std::string& submission, const std::string& extra,
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

std::string secret_flag() { return "--variant-secret " + course().secret.string(); }
std::string metadata_of(const std::string& email) {
  return Json{{"id", 1},
              {"users", {{{"email", email}, {"id", 7}, {"name", "A Student"}}}},
              {"assignment", {{"title", "Week 3"}}}}
      .dump();
}
std::string data_of(const Json& seed) {
  return Json{{"params", Json::object()}, {"variant_seed", seed}, {"submitted_answers", {}}}.dump();
}

// The student's problem as the results show it: the statement with their row and output
// numbers, `expected` with its vectors in their order, and under "W_E" one row a feature, its
// label then one number a letter; each checked against the file's relabeled here.
void expect_student_problem(const std::string& output, const std::string& variant) {
  const Ids r = read_id(variant);
  const Json& file = course().file;
  // The consonant feature is the file's row 1 (0-based), its output 1 is the file's second.
  const auto place = [](const std::vector<int>& order, int original) {
    return std::to_string(std::find(order.begin(), order.end(), original) - order.begin() + 1);
  };
  EXPECT_NE(output.find("\nRow " + place(r.features, 1) +
                        " of W_E is the consonant feature; "
                        "output " +
                        place(r.outputs, 1) + " is 1 once a consonant has occurred.\n"),
            std::string::npos)
      << output;
  const auto vector = [&](int first, int second) {
    const int written[2] = {first, second};
    return "[" + std::to_string(written[r.outputs[0]]) + ", " +
           std::to_string(written[r.outputs[1]]) + "]";
  };
  EXPECT_NE(
      output.find("\nexpected: any(consonant) ? " + vector(0, 1) + " : " + vector(1, 0) + "\n"),
      std::string::npos)
      << output;
  std::istringstream lines(output.substr(output.find("  W_E (rows: features")));
  std::string line;
  std::getline(lines, line);  // the title
  std::getline(lines, line);  // the letters
  for (std::size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(std::getline(lines, line)) << output;
    std::istringstream cells(line);
    std::string label;
    cells >> label;
    EXPECT_EQ(label, file["feature_names"][r.features[i]]) << line;
    for (std::size_t t = 0; t < 26; ++t) {
      double value = -1;
      cells >> value;
      EXPECT_EQ(value, kScales[r.scales[i]] * file["W_E"][r.features[i]][t].get<double>()) << line;
    }
  }
}

TEST(GradescopeVariants, EachStudentPassesWithTheirOwnVariantFromTheMetadataAndFailsWithTheOthers) {
  const auto [ada, bob] = two_students(kMember, email);
  const std::string ada_variant = variant_of(kMember, ada);
  const std::string bob_variant = variant_of(kMember, bob);
  ASSERT_NE(ada_variant, bob_variant);
  for (const auto& [student, own, other] :
       {std::tuple{ada, ada_variant, bob_variant}, std::tuple{bob, bob_variant, ada_variant}}) {
    SCOPED_TRACE(own);
    const auto passing =
        run("gradescope", student_head(own), "--problem " + kMember + " " + secret_flag(),
            "--metadata", "metadata.json", metadata_of(student));
    ASSERT_EQ(passing.exit_code, 0) << passing.out;
    EXPECT_EQ(passing.results.at("score"), 1) << passing.text;
    EXPECT_TRUE(passing.output.starts_with("Your problem: " + kMember + ", your variant " + own +
                                           ". Your file is graded on this problem.\n\n"))
        << passing.output;
    expect_student_problem(passing.output, own);
    EXPECT_NE(passing.output.find(kMember + ": PASSED — 697 of 697 tested strings pass\n"),
              std::string::npos);
    const auto failing =
        run("gradescope", student_head(other), "--problem " + kMember + " " + secret_flag(),
            "--metadata", "metadata.json", metadata_of(student));
    ASSERT_EQ(failing.exit_code, 0) << failing.out;
    EXPECT_LT(failing.results.at("score").get<double>(), 1) << failing.text;
    EXPECT_NE(failing.output.find(kMember + ": FAILED"), std::string::npos);
  }
  // The problem as written (the handout's solution) fails one of the two: the outputs swapped.
  const auto written = run(
      "gradescope", testing::kHandoutSolution, "--problem " + kMember + " " + secret_flag(),
      "--metadata", "metadata.json", metadata_of(read_id(ada_variant).outputs[0] == 1 ? ada : bob));
  EXPECT_LT(written.results.at("score").get<double>(), 1) << written.text;
}

TEST(GradescopeVariants, TheStudentFlagOverridesTheMetadata) {
  const auto [ada, bob] = two_students(kMember, email);
  const std::string bob_variant = variant_of(kMember, bob);
  // Ada's metadata, but --student bob: bob's variant, his head passes.
  const auto r = run("gradescope", student_head(bob_variant),
                     "--problem " + kMember + " " + secret_flag() + " --student " + bob,
                     "--metadata", "metadata.json", metadata_of(ada));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.results.at("score"), 1) << r.text;
  EXPECT_NE(r.output.find("your variant " + bob_variant + "."), std::string::npos);
  // No metadata file at all: --student is enough.
  const auto no_file = run("gradescope", student_head(bob_variant),
                           "--problem " + kMember + " " + secret_flag() + " --student " + bob +
                               " --metadata " + (course().root / "no-such-metadata.json").string());
  EXPECT_EQ(no_file.results.at("score"), 1) << no_file.out;
  // The student's own file cannot pick a variant: its "student" is not who submitted.
  const auto chosen = run("gradescope", testing::with_student(student_head(bob_variant), bob),
                          "--problem " + kMember + " " + secret_flag(), "--metadata",
                          "metadata.json", metadata_of(ada));
  EXPECT_LT(chosen.results.at("score").get<double>(), 1) << chosen.text;
}

TEST(GradescopeVariants, AFileThatCannotBeGradedStillShowsTheStudentTheirProblem) {
  const std::string ada = email(0);
  const std::string variant = variant_of(kMember, ada);
  const auto r = run("gradescope", "any file", "--problem " + kMember + " " + secret_flag(),
                     "--metadata", "metadata.json", metadata_of(ada));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.results.at("score"), 0);
  EXPECT_TRUE(r.output.starts_with("Your problem: " + kMember + ", your variant " + variant))
      << r.output;
  expect_student_problem(r.output, variant);
  EXPECT_NE(r.output.find("Your submission could not be graded: submission.json: "),
            std::string::npos)
      << r.output;
}

TEST(PrairieLearnVariants, TheStudentIsTheQuestionsVariantSeedFromDataJson) {
  const auto [first, second] =
      two_students(kMember, [](int i) { return "prairielearn:" + std::to_string(1000 + i); });
  for (const auto& [student, other] : {std::pair{first, second}, std::pair{second, first}}) {
    const std::string own = variant_of(kMember, student);
    SCOPED_TRACE(own);
    const Json seed = std::stoi(student.substr(std::string("prairielearn:").size()));
    const auto passing =
        run("prairielearn", student_head(own), "--problem " + kMember + " " + secret_flag(),
            "--data", "data.json", data_of(seed));
    ASSERT_EQ(passing.exit_code, 0) << passing.out;
    EXPECT_EQ(passing.results.at("gradable"), true);
    EXPECT_EQ(passing.results.at("score"), 1) << passing.text;
    EXPECT_EQ(passing.results.at("message"), "Passed: 697 of 697 tested strings pass. Graded on " +
                                                 kMember + ", your variant " + own + ".");
    EXPECT_TRUE(passing.output.starts_with("Your problem: " + kMember + ", your variant " + own))
        << passing.output;
    expect_student_problem(passing.output, own);
    const auto failing =
        run("prairielearn", student_head(variant_of(kMember, other)),
            "--problem " + kMember + " " + secret_flag(), "--data", "data.json", data_of(seed));
    EXPECT_LT(failing.results.at("score").get<double>(), 1) << failing.text;
    // A seed written as a string is the same student.
    const auto as_text =
        run("prairielearn", student_head(own), "--problem " + kMember + " " + secret_flag(),
            "--data", "data.json", data_of(seed.dump()));
    EXPECT_EQ(as_text.results.at("score"), 1) << as_text.text;
  }
  // Not gradable: no attempt taken, and the student reads their problem.
  const auto r = run("prairielearn", "{", "--problem " + kMember + " " + secret_flag(), "--data",
                     "data.json", data_of(1000));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.results.at("gradable"), false);
  EXPECT_TRUE(r.output.starts_with("Your problem: " + kMember + ", your variant ")) << r.text;
  EXPECT_NE(r.results.at("message").get<std::string>().find(
                "Graded on " + kMember + ", your variant " + variant_of(kMember, first) + "."),
            std::string::npos)
      << r.text;
}

TEST(PlatformVariants, APoolGivesEachStudentTheMemberTheServerDrawsAndItsVariant) {
  const ProblemPool* pool = course().set.find_pool(kPool);
  ASSERT_NE(pool, nullptr);
  std::set<std::string> members_seen;
  for (int i = 0; i < 16 && members_seen.size() < 2; ++i) {
    const std::string student = email(i);
    const std::string member = pool->members[pool_member(kSecret, *pool, student)];
    if (!members_seen.insert(member).second) continue;
    SCOPED_TRACE(member);
    const std::string variant = variant_of(member, student);
    const auto r =
        run("gradescope", student_head(variant), "--problem " + kPool + " " + secret_flag(),
            "--metadata", "metadata.json", metadata_of(student));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.results.at("score"), 1) << r.text;
    EXPECT_TRUE(r.output.starts_with("Your problem: " + member + " (drawn for you from " + kPool +
                                     "), your variant " + variant + "."))
        << r.output;
    const auto pl = run("prairielearn", student_head(variant),
                        "--problem " + kPool + " " + secret_flag() + " --student " + student);
    EXPECT_EQ(pl.results.at("score"), 1) << pl.text;
    EXPECT_NE(pl.results.at("message").get<std::string>().find(
                  "Graded on " + member + " (from " + kPool + "), your variant " + variant),
              std::string::npos)
        << pl.text;
  }
  EXPECT_EQ(members_seen.size(), 2u);
  // Without a secret a pool cannot be graded: which member is the student's?
  const auto no_secret = run("gradescope", testing::kHandoutSolution, "--problem " + kPool,
                             "--metadata", "metadata.json", metadata_of(email(0)));
  EXPECT_EQ(no_secret.exit_code, 2);
  EXPECT_TRUE(no_secret.results.is_null());
  EXPECT_NE(no_secret.out.find("\"" + kPool + "\" is a pool"), std::string::npos) << no_secret.out;
  EXPECT_NE(no_secret.out.find("--variant-secret"), std::string::npos) << no_secret.out;
}

TEST(PlatformVariants, WithoutASecretTheProblemIsGradedAsWrittenAndNoPlatformFileIsRead) {
  for (const std::string command : {"gradescope", "prairielearn"}) {
    SCOPED_TRACE(command);
    const std::string flag = command == "gradescope" ? "--metadata" : "--data";
    const auto r = run(command, testing::kHandoutSolution, "--problem " + kMember, flag,
                       "missing.json");  // not written
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.results.at("score"), 1) << r.text;
    EXPECT_EQ(r.output.find("Your problem"), std::string::npos) << r.output;
  }
}

// Each instructor's error: exit 2, the reason on stderr naming the file and the field, and no
// results.json (the platform shows that the autograder failed; no grade is recorded).
void expect_refused(const Run& r, const std::vector<std::string>& parts) {
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(r.results.is_null()) << r.text;
  for (const std::string& part : parts) EXPECT_NE(r.out.find(part), std::string::npos) << r.out;
}

TEST(PlatformVariants, ABadSecretIsRefusedWithTheServersReasons) {
  const fs::path root = testing::private_temp_path("platform-variant-secrets");
  fs::create_directories(root);
  write_file(root / "short", std::string(31, 'x') + "\n");
  const std::string student = " --student " + email(0);
  expect_refused(
      run("gradescope", testing::kHandoutSolution,
          "--problem " + kMember + " --variant-secret " + (root / "missing").string() + student),
      {"--variant-secret " + (root / "missing").string() + ": the file cannot be read"});
  expect_refused(
      run("prairielearn", testing::kHandoutSolution,
          "--problem " + kMember + " --variant-secret " + (root / "short").string() + student),
      {"--variant-secret " + (root / "short").string() +
       ": the secret is 31 bytes, shorter than the 32"});
  // From the environment when the flag is absent, as the server reads it.
  ::setenv("HEADGRADER_VARIANT_SECRET_FILE", (root / "short").c_str(), 1);
  const auto from_env =
      run("gradescope", testing::kHandoutSolution, "--problem " + kMember + student);
  ::setenv("HEADGRADER_VARIANT_SECRET_FILE", course().secret.c_str(), 1);
  const auto good_env = run("gradescope", student_head(variant_of(kMember, email(0))),
                            "--problem " + kMember + student);
  ::unsetenv("HEADGRADER_VARIANT_SECRET_FILE");
  expect_refused(from_env, {"shorter than the 32"});
  EXPECT_EQ(good_env.results.at("score"), 1) << good_env.out;
}

TEST(PlatformVariants, APlatformFileThatNamesNoStudentIsRefusedNamingTheFileAndTheField) {
  const std::string args = "--problem " + kMember + " " + secret_flag();
  struct Case {
    const char* what;
    std::string command, flag, text, field, reason;
  };
  const Case cases[] = {
      {"metadata missing", "gradescope", "--metadata", "", "", "the file cannot be read"},
      {"metadata not JSON", "gradescope", "--metadata", "{\"users\": [", "", "the file"},
      {"metadata a list", "gradescope", "--metadata", "[]", "", "the file is not a JSON object"},
      {"no users", "gradescope", "--metadata", R"({"id": 1})",
       "users[0].email: ", "missing (the file has no \"users\")"},
      {"users empty", "gradescope", "--metadata", R"({"users": []})",
       "users[0].email: ", "missing (\"users\" is empty)"},
      {"email missing", "gradescope", "--metadata", R"({"users": [{"name": "A"}]})",
       "users[0].email: ", "missing"},
      {"email empty", "gradescope", "--metadata", R"({"users": [{"email": ""}]})",
       "users[0].email: ", "empty"},
      {"email a number", "gradescope", "--metadata", R"({"users": [{"email": 3}]})",
       "users[0].email: ", "not a string"},
      {"no variant_seed", "prairielearn", "--data", R"({"params": {}})",
       "variant_seed: ", "missing"},
      {"variant_seed null", "prairielearn", "--data", R"({"variant_seed": null})",
       "variant_seed: ", "not a string or a number"},
      {"variant_seed empty", "prairielearn", "--data", R"({"variant_seed": ""})",
       "variant_seed: ", "empty"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const auto r = run(c.command, testing::kHandoutSolution, args, c.flag, "platform.json", c.text);
    expect_refused(r, {c.command + ": " + c.flag + " ", "platform.json: " + c.field + c.reason});
  }
  // A file past the size limit is refused before it is read.
  const fs::path big = testing::private_temp_path("platform-variant-big.json");
  {
    std::ofstream out(big, std::ios::binary);
    out << "{\"users\": [{\"email\": \"x@example.edu\"}], \"pad\": \"";
    out << std::string(limits::kMaxPlatformMetadataBytes, 'x') << "\"}";
  }
  expect_refused(run("gradescope", testing::kHandoutSolution, args + " --metadata " + big.string()),
                 {big.string() + ": the file is over 16 MiB"});
}

}  // namespace
}  // namespace headgrader::integrations_variant

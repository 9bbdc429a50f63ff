// What `headgrader gradescope` and `headgrader prairielearn` do alike with variants (API.md
// §12, §15), with the real binary and the course of integrations_variant_support.h: a pool
// gives each student the member the server draws and its variant; without a secret the problem
// is graded as written and no platform file is read; every bad secret or platform file is
// refused naming the file, the field and the reason, with no results.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "headgrader/limits.h"
#include "headgrader/pool.h"
#include "integrations_variant_support.h"
#include "test_support.h"

namespace headgrader::integrations_variant {
namespace {

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

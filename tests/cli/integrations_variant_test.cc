// `headgrader gradescope` and `headgrader prairielearn` grading each student's variant (API.md
// §12, §15) as the platforms run them: the real binary, the problem folder with `variants` of
// integrations_variant_support.h, a fixed secret, the student named by Gradescope's
// submission_metadata.json, PrairieLearn's data.json or --student. Each student passes with
// the reference transformed to their variant and fails with another student's, and the results
// show the student their own problem. Pools, no secret and the instructor's errors are in
// integrations_variant_platform_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "integrations_variant_support.h"
#include "test_support.h"

namespace headgrader::integrations_variant {
namespace {

// The student's problem as the results show it: the statement with their row and output
// numbers, `expected` with its vectors in their order, and under "W_E" one row a feature, its
// label then one number a letter; each checked against the file's relabeled here.
void expect_student_problem(const std::string& output, const std::string& variant) {
  const variant_testing::VariantIds r = read_variant_id(variant);
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
  const auto written =
      run("gradescope", testing::kHandoutSolution, "--problem " + kMember + " " + secret_flag(),
          "--metadata", "metadata.json",
          metadata_of(read_variant_id(ada_variant).outputs[0] == 1 ? ada : bob));
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

}  // namespace
}  // namespace headgrader::integrations_variant

// A problem's statistics (store/problem_stats.h) computed from its inputs, checked against
// counts made by hand: students, passes, the score histogram, common failures, mistakes and
// variants.
#include "problem_stats.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace headgrader::store {
namespace {

TEST(ProblemStats, CountsBinsAndCommonFailuresByHand) {
  StatsInputs inputs;
  inputs.submissions = 9;
  const auto student = [](std::string name, bool first, std::int64_t passed_tests,
                          std::vector<std::string> failing) {
    StudentSummary s;
    s.student = std::move(name);
    s.first_passed = first;
    s.latest.tests_total = 10;
    s.latest.tests_passed = passed_tests;
    s.latest.passed = passed_tests == 10;
    s.latest.failing_inputs = std::move(failing);
    return s;
  };
  inputs.students = {student("a", true, 10, {}), student("b", false, 3, {"ab", "b", "ab"}),
                     student("c", false, 9, {"b"}), student("d", false, 0, {"ab", "cb"}),
                     student("e", true, 10, {})};
  const ProblemStats stats = compute_stats("p", inputs);
  EXPECT_EQ(stats.submissions, 9);
  EXPECT_EQ(stats.students, 5);
  EXPECT_EQ(stats.students_passed, 2);
  EXPECT_EQ(stats.first_try_pass_rate, 0.4);
  // 0.3 → bin 3; 0.9 and 1.0 → bin 9 (the last bin is closed); 0 → bin 0.
  const std::array<std::int64_t, 10> bins = {1, 0, 0, 1, 0, 0, 0, 0, 0, 3};
  EXPECT_EQ(stats.score_histogram, bins);
  ASSERT_EQ(stats.common_failures.size(), 3u);
  EXPECT_EQ(stats.common_failures[0].input, "ab");  // b and d (b's twice counts once)
  EXPECT_EQ(stats.common_failures[0].students, 2);
  EXPECT_EQ(stats.common_failures[1].input, "b");  // b and c; ties by input
  EXPECT_EQ(stats.common_failures[1].students, 2);
  EXPECT_EQ(stats.common_failures[2].input, "cb");
  EXPECT_FALSE(compute_stats("p", {}).first_try_pass_rate);
}

TEST(ProblemStats, MistakesAreCountedOncePerStudentMostFirstThenByName) {
  StatsInputs inputs;
  const auto student = [](std::string name, std::vector<std::string> mistakes) {
    StudentSummary s;
    s.student = std::move(name);
    s.latest.tests_total = 10;
    s.latest.mistakes = std::move(mistakes);
    return s;
  };
  inputs.students = {student("a", {"value_rows_swapped", "key_too_soft"}),
                     student("b", {"key_too_soft", "key_too_soft"}), student("c", {"zeta_name"}),
                     student("d", {"value_rows_swapped"}), student("e", {})};
  const ProblemStats stats = compute_stats("p", inputs);
  ASSERT_EQ(stats.mistakes.size(), 3u);
  // 2, 2 (a tie: by name), 1; b's twice counts once.
  EXPECT_EQ(stats.mistakes[0].mistake, "key_too_soft");
  EXPECT_EQ(stats.mistakes[0].students, 2);
  EXPECT_EQ(stats.mistakes[1].mistake, "value_rows_swapped");
  EXPECT_EQ(stats.mistakes[1].students, 2);
  EXPECT_EQ(stats.mistakes[2].mistake, "zeta_name");
  EXPECT_EQ(stats.mistakes[2].students, 1);
}

TEST(ProblemStats, VariantsCountEachStudentsLatestGradingByVariantId) {
  StatsInputs inputs;
  const auto student = [](std::string name, std::string variant, bool passed) {
    StudentSummary s;
    s.student = std::move(name);
    s.latest.tests_total = 10;
    s.latest.passed = passed;
    s.latest.variant = std::move(variant);
    return s;
  };
  inputs.students = {student("a", "f1.0", true), student("b", "f0.1", false),
                     student("c", "f1.0", false), student("d", "f1.0", true),
                     student("e", "", true)};  // graded on the problem as written: in none
  const ProblemStats stats = compute_stats("p", inputs);
  ASSERT_EQ(stats.variants.size(), 2u);
  EXPECT_EQ(stats.variants[0].variant, "f0.1");  // by id
  EXPECT_EQ(stats.variants[0].students, 1);
  EXPECT_EQ(stats.variants[0].students_passed, 0);
  EXPECT_EQ(stats.variants[1].variant, "f1.0");
  EXPECT_EQ(stats.variants[1].students, 3);
  EXPECT_EQ(stats.variants[1].students_passed, 2);
  EXPECT_TRUE(compute_stats("p", {}).variants.empty());
}

}  // namespace
}  // namespace headgrader::store

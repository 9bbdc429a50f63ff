// Grading end to end on the bundled problems: the handout's solutions pass; known-wrong heads
// fail with the right shortest failing string, the right count (checked by brute force
// against an independent head) and a trace that matches an independent computation.
#include "headgrader/grade.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "test_support.h"

namespace headgrader {
namespace {

using testing::bundled;
using testing::rows;

const HeadWeights kAnywhereSolution{rows({{1, 1}}), rows({{0, 5}}), rows({{1, 0}, {0, 1}})};
const HeadWeights kProportionSolution{rows({{1, 1}}), rows({{1, 1}}), rows({{1, 0}, {0, 1}})};
const HeadWeights kFirstPositionSolution{rows({{1, 1, 0}}), rows({{0, 0, 5}}),
                                         rows({{0, 1, 0}, {0, 0, 0}})};

// Every tested string of a problem, listed from scratch (not by the engine's walk).
std::vector<TokenString> every_tested_string(const Problem& p) {
  std::vector<TokenString> all;
  std::vector<TokenString> level = {{}};
  for (int length = 1; length <= p.strings.exhaustive_length; ++length) {
    std::vector<TokenString> next;
    for (const auto& s : level) {
      for (int r : p.representatives()) {
        auto t = s;
        t.push_back(r);
        next.push_back(t);
      }
    }
    all.insert(all.end(), next.begin(), next.end());
    level = std::move(next);
  }
  all.insert(all.end(), p.extra_strings().begin(), p.extra_strings().end());
  return all;
}

// Brute force with the independent head: which tested strings fail, in report order.
std::vector<TokenString> failing_by_brute_force(const Problem& p, const HeadWeights& w) {
  std::vector<TokenString> failing;
  for (const auto& s : every_tested_string(p)) {
    const auto h = testing::independent_head(p.head, w, s);
    const Matrix want = expected_output(p, s);
    if (!((h.out - want).cwiseAbs().maxCoeff() <= p.tolerance)) failing.push_back(s);
  }
  std::sort(failing.begin(), failing.end(), shortlex_less);
  return failing;
}

TEST(Grade, TheHandoutSolutionsPassEveryBundledProblem) {
  for (const auto& [id, w] : {std::pair{"consonant-anywhere", kAnywhereSolution},
                              std::pair{"consonant-proportion", kProportionSolution},
                              std::pair{"first-position", kFirstPositionSolution}}) {
    const auto report = grade(bundled(id), w, 3);
    EXPECT_TRUE(report.passed) << id;
    EXPECT_EQ(report.score, 1.0) << id;
    EXPECT_EQ(report.failed, 0u) << id;
    EXPECT_TRUE(report.failures.empty()) << id;
    EXPECT_EQ(report.total, bundled(id).tested_total()) << id;
  }
}

TEST(Grade, TooSoftKeyFailsFirstOnAbWithTheIndependentTrace) {
  const Problem& p = bundled("consonant-anywhere");
  const HeadWeights soft{rows({{1, 1}}), rows({{0, 2}}), rows({{1, 0}, {0, 1}})};
  const auto report = grade(p, soft, 3);
  ASSERT_FALSE(report.passed);
  ASSERT_EQ(report.failures.size(), 3u);
  const auto& first = report.failures.front();
  EXPECT_EQ(p.spell(first.input), "ab");
  EXPECT_EQ(first.failing_positions, std::vector<int>{2});
  // At "ab" position 2 the consonant gets e²/(1 + e²): the error is 1/(1 + e²).
  EXPECT_NEAR(first.max_error, 1 / (1 + std::exp(2.0)), 1e-15);
  const auto h = testing::independent_head(p.head, soft, first.input);
  EXPECT_TRUE(first.trace.embeddings.isApprox(h.R));
  EXPECT_TRUE(first.trace.Q.isApprox(h.Q));
  EXPECT_TRUE(first.trace.K.isApprox(h.K));
  EXPECT_TRUE(first.trace.V.isApprox(h.V));
  EXPECT_TRUE(first.trace.scores.isApprox(h.S));
  EXPECT_TRUE(first.trace.attention.isApprox(h.A, 1e-14));
  EXPECT_TRUE(first.trace.output.isApprox(h.out, 1e-14));
  EXPECT_EQ(first.expected, rows({{1, 0}, {0, 1}}));
  // Counts and order against brute force.
  const auto failing = failing_by_brute_force(p, soft);
  EXPECT_EQ(report.failed, failing.size());
  EXPECT_EQ(report.passed_count, report.total - failing.size());
  for (std::size_t n = 0; n < report.failures.size(); ++n) {
    EXPECT_EQ(report.failures[n].input, failing[n]) << "failure " << n;
  }
}

TEST(Grade, SwappedQueryAndKeyAttendUniformlyAndFailOnAb) {
  const Problem& p = bundled("consonant-anywhere");
  const HeadWeights swapped{rows({{0, 5}}), rows({{1, 1}}), rows({{1, 0}, {0, 1}})};
  const auto report = grade(p, swapped, 1);
  ASSERT_EQ(report.failures.size(), 1u);
  EXPECT_EQ(p.spell(report.failures[0].input), "ab");
  EXPECT_EQ(report.failures[0].max_error, 0.5);  // the contract's example: [0.5, 0.5]
  EXPECT_EQ(report.failures[0].trace.output, rows({{1, 0}, {0.5, 0.5}}));
  EXPECT_EQ(report.failed, failing_by_brute_force(p, swapped).size());
}

TEST(Grade, WrongValueMatrixFailsOnTheFirstLetter) {
  const Problem& p = bundled("first-position");
  const HeadWeights wrong_V{rows({{1, 1, 0}}), rows({{0, 0, 5}}), rows({{1, 0, 0}, {0, 0, 0}})};
  const auto report = grade(p, wrong_V, 100);
  ASSERT_FALSE(report.failures.empty());
  EXPECT_EQ(p.spell(report.failures[0].input), "a");  // a vowel first: V gives [1, 0], not [0, 0]
  EXPECT_EQ(report.failures[0].failing_positions, std::vector<int>{1});
  const auto failing = failing_by_brute_force(p, wrong_V);
  EXPECT_EQ(report.failed, failing.size());
  ASSERT_EQ(report.failures.size(), std::min<std::size_t>(100, failing.size()));
  for (std::size_t n = 0; n < report.failures.size(); ++n) {
    EXPECT_EQ(report.failures[n].input, failing[n]) << "failure " << n;
  }
}

TEST(Grade, MaxFailuresBoundsTheListNotTheCount) {
  const Problem& p = bundled("consonant-proportion");
  const auto none = grade(p, kAnywhereSolution, 0);
  EXPECT_TRUE(none.failures.empty());
  EXPECT_GT(none.failed, 0u);
  const auto many = grade(p, kAnywhereSolution, 100);
  EXPECT_EQ(many.failed, none.failed);
  EXPECT_EQ(many.failures.size(), std::min<std::uint64_t>(100, many.failed));
  EXPECT_TRUE(std::is_sorted(
      many.failures.begin(), many.failures.end(),
      [](const Failure& a, const Failure& b) { return shortlex_less(a.input, b.input); }));
}

TEST(Grade, ExamplesAreReportedInTheProblemsOrder) {
  const Problem& p = bundled("consonant-anywhere");
  const auto report = grade(p, kAnywhereSolution, 3);
  ASSERT_EQ(report.examples.size(), p.strings.examples.size());
  for (std::size_t n = 0; n < p.strings.examples.size(); ++n) {
    EXPECT_EQ(p.spell(report.examples[n].input), p.strings.examples[n]);
    EXPECT_TRUE(report.examples[n].passed);
  }
  // "aeri": no, no, yes, yes (the handout's example 3).
  EXPECT_EQ(report.examples[2].expected, rows({{1, 0}, {1, 0}, {0, 1}, {0, 1}}));
}

TEST(Grade, TwoGradingsAreByteIdentical) {
  const Problem& p = bundled("consonant-anywhere");
  const HeadWeights soft{rows({{1, 1}}), rows({{0, 2}}), rows({{1, 0}, {0, 1}})};
  const auto first = report_json(p, grade(p, soft, 100));
  const auto second = report_json(p, grade(p, soft, 100));
  EXPECT_EQ(first, second);
}

TEST(GradeJson, HasTheContractsKeysInOrderWithMaskedScoresAsNull) {
  const Problem& p = bundled("consonant-anywhere");
  auto submission =
      parse_submission(p, R"({"W_q": [[1, 1]], "W_k": [[0, 2]], "W_V": [[1, 0], [0, 1]],
                                            "max_failures": 1})");
  ASSERT_TRUE(submission.ok());
  const auto json =
      Json::parse(report_json(p, grade(p, submission->weights, submission->max_failures)));
  std::vector<std::string> keys;
  for (const auto& [key, value] : json.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"problem", "passed", "score", "tests", "examples",
                                            "failures", "diagnosis"}));
  const auto& failure = json.at("failures").at(0);
  EXPECT_EQ(failure.at("input"), "ab");
  EXPECT_EQ(failure.at("failing_positions"), Json::parse("[2]"));
  EXPECT_EQ(failure.at("expected").dump(), "[[1,0],[0,1]]");
  EXPECT_EQ(failure.at("trace").at("masked_scores").dump(), "[[0,null],[0,2]]");
  EXPECT_EQ(failure.at("trace").at("scores").dump(), "[[0,2],[0,2]]");
  std::vector<std::string> trace_keys;
  for (const auto& [key, value] : failure.at("trace").items()) trace_keys.push_back(key);
  EXPECT_EQ(trace_keys, (std::vector<std::string>{"embeddings", "Q", "K", "V", "scores",
                                                  "masked_scores", "attention", "output"}));
  const auto& tests = json.at("tests");
  EXPECT_EQ(tests.at("total").get<std::uint64_t>(),
            tests.at("passed").get<std::uint64_t>() + tests.at("failed").get<std::uint64_t>());
  EXPECT_DOUBLE_EQ(json.at("score").get<double>(),
                   tests.at("passed").get<double>() / tests.at("total").get<double>());
}

TEST(GradeJson, ScoreIsANumberWhenOnlyExamplesAreTested) {
  // Consonant-anywhere over "ab" (a a vowel, b a consonant) with no exhaustive set: the two
  // distinct examples "aa" and "ab" are the whole tested set.
  const std::string text = R"json({
    "id": "examples-only", "title": "t", "statement": "s",
    "alphabet": "ab", "classes": {"vowel": "a", "consonant": "b"},
    "W_E": [[1, 0], [0, 1]], "submit": ["W_q", "W_k", "W_V"],
    "expected": "any(consonant) ? [0, 1] : [1, 0]", "tolerance": 0.1,
    "strings": {"max_length": 2, "exhaustive_length": 0, "examples": ["aa", "ab", "aa"]},
    "reference": {"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]}
  })json";
  auto loaded = load_problem_text(text, "examples-only.json");
  ASSERT_TRUE(std::holds_alternative<Problem>(loaded))
      << std::get<std::vector<Defect>>(loaded).front().to_string();
  const Problem& p = std::get<Problem>(loaded);
  const auto passing = Json::parse(report_json(p, grade(p, kAnywhereSolution, 3)));
  EXPECT_EQ(passing.at("score").dump(), "1.0");
  EXPECT_EQ(passing.at("tests").dump(), R"({"total":2,"passed":2,"failed":0})");
  // W_k = 0 attends uniformly: "aa" still gives [1, 0] everywhere, but "ab" gives
  // [0.5, 0.5] at position 2 where [0, 1] is expected. One of two passes.
  const HeadWeights uniform{rows({{1, 1}}), rows({{0, 0}}), rows({{1, 0}, {0, 1}})};
  const auto half = Json::parse(report_json(p, grade(p, uniform, 3)));
  EXPECT_EQ(half.at("score").dump(), "0.5");
  EXPECT_EQ(half.at("tests").dump(), R"({"total":2,"passed":1,"failed":1})");
}

TEST(ProblemJson, ServesEveryFieldWithDefaultsButNeverTheReference) {
  const Problem& p = bundled("consonant-anywhere");
  const auto json = problem_to_json(p);
  EXPECT_FALSE(json.contains("reference"));
  EXPECT_EQ(json.at("scale"), 1);
  EXPECT_EQ(json.at("causal"), true);
  EXPECT_EQ(json.at("given"), Json::object());
  EXPECT_EQ(json.at("strings").at("exhaustive_length"), 8);
  EXPECT_EQ(json.at("expected"), "any(consonant) ? [0, 1] : [1, 0]");
  EXPECT_EQ(json.dump().find("[[0,5]]"), std::string::npos);
}

}  // namespace
}  // namespace headgrader

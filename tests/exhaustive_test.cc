// The prefix-tree grading (grade) gives exactly the report of running every tested string
// on its own (grade_each_string): same counts, same failures in the same order, same bytes.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "test_support.h"

namespace headgrader {
namespace {

using testing::bundled;
using testing::rows;

void expect_same_report(const Problem& p, const HeadWeights& w, const std::string& what) {
  const auto fast = report_to_json(p, grade(p, w, 100)).dump();
  const auto plain = report_to_json(p, grade_each_string(p, w, 100)).dump();
  EXPECT_EQ(fast, plain) << what;
}

Problem load_test_problem(const std::string& name) {
  std::ifstream in(std::string(HEADGRADER_SOURCE_DIR "/tests/data/exhaustive/") + name);
  std::stringstream text;
  text << in.rdbuf();
  auto loaded = load_problem_text(text.str(), name);
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    for (const auto& d : *defects) ADD_FAILURE() << d.to_string();
    std::abort();
  }
  return std::get<Problem>(std::move(loaded));
}

class RandomHeads {
 public:
  explicit RandomHeads(std::uint64_t seed) : rng_(seed) {}
  double uniform(double low, double high) {
    return low + (high - low) * static_cast<double>(rng_.next() >> 11) * 0x1p-53;
  }
  Matrix matrix(Eigen::Index r, Eigen::Index c, double range) {
    return Matrix::NullaryExpr(r, c, [&] { return uniform(-range, range); });
  }
  // Heads of every sharpness, up to the contract's limit of 1e6 per entry.
  HeadWeights head(const Problem& p, int trial) {
    static constexpr double kRanges[] = {0.5, 3, 20, 1e3, 1e6};
    const double range = kRanges[trial % 5];
    const auto n_q = 1 + static_cast<Eigen::Index>(rng_.next() % 3);
    const auto n_e = static_cast<Eigen::Index>(p.n_e);
    Matrix V = matrix(static_cast<Eigen::Index>(p.n_v), n_e, 1.5);
    if (trial % 2 == 0) V = p.reference.W_V;  // the right values, so heads pass now and then
    return HeadWeights{matrix(n_q, n_e, range), matrix(n_q, n_e, range), V};
  }

 private:
  SplitMix64 rng_;
};

TEST(ExhaustiveGrading, EqualsStringByStringOnTheBundledProblemsReferencesAndKnownWrongHeads) {
  for (const char* id : {"consonant-anywhere", "consonant-proportion", "first-position"}) {
    const Problem& p = bundled(id);
    expect_same_report(p, p.reference, std::string(id) + " reference");
    HeadWeights soft = p.reference;
    soft.W_k *= 0.4;
    expect_same_report(p, soft, std::string(id) + " soft key");
    expect_same_report(p, HeadWeights{p.reference.W_k, p.reference.W_q, p.reference.W_V},
                       std::string(id) + " swapped");
  }
}

TEST(ExhaustiveGrading, EqualsStringByStringOnRandomHeadsOfEverySharpness) {
  RandomHeads random(11);
  const Problem three = load_test_problem("three-letters.json");
  const Problem reads_positions = load_test_problem("own-class-by-position.json");
  for (const Problem* p : {&bundled("consonant-anywhere"), &bundled("consonant-proportion"),
                           &bundled("first-position"), &three, &reads_positions}) {
    for (int trial = 0; trial < 40; ++trial) {
      expect_same_report(*p, random.head(*p, trial), p->id + " trial " + std::to_string(trial));
    }
  }
}

TEST(ExhaustiveGrading, RowsExactlyAtTheToleranceAreJudgedAsOnTheirOwn) {
  // Make the tolerance equal, to the last bit, to the error run_head gives on some string:
  // the fast path's reordered sums may land a hair either side; the result must not.
  const HeadWeights soft{rows({{1, 1}}), rows({{0, 2}}), rows({{1, 0}, {0, 1}})};
  for (const char* text : {"ab", "aab", "abab", "aaaab", "abbbbbb"}) {
    Problem p = bundled("consonant-anywhere");
    const auto s = testing::tokens_of(p, text);
    const auto out = run_head(p.head, soft, s).output;
    p.tolerance = (out - expected_output(p, s)).cwiseAbs().maxCoeff();
    const auto fast = grade(p, soft, 100);
    EXPECT_EQ(report_to_json(p, fast).dump(), report_to_json(p, grade_each_string(p, soft, 100)).dump())
        << text;
    EXPECT_TRUE(std::none_of(fast.failures.begin(), fast.failures.end(),
                             [&](const Failure& f) { return f.input == s; }))
        << text << " is exactly at the tolerance and must pass";
  }
}

TEST(ExhaustiveGrading, AFailingPrefixFailsItsWholeSubtree) {
  // The wrong V fails at position 1 of every string: all 510 exhaustive strings fail.
  Problem p = bundled("consonant-anywhere");
  p.extra_strings.clear();  // the exhaustive set alone
  const HeadWeights wrong_V{rows({{1, 1}}), rows({{0, 5}}), rows({{0, 1}, {1, 0}})};
  const auto report = grade(p, wrong_V, 5);
  EXPECT_EQ(report.failed, report.total);
  std::vector<std::string> first;
  for (const auto& f : report.failures) first.push_back(p.spell(f.input));
  EXPECT_EQ(first, (std::vector<std::string>{"a", "b", "aa", "ab", "ba"}));
}

}  // namespace
}  // namespace headgrader

// The head against the handout's worked numbers (to the 4 decimals it prints) and against
// an independent computation.
#include "headgrader/attention.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace headgrader {
namespace {

using testing::bundled;
using testing::rows;
using testing::tokens_of;

void expect_near(const Matrix& actual, const Matrix& expected, double tolerance) {
  ASSERT_EQ(actual.rows(), expected.rows());
  ASSERT_EQ(actual.cols(), expected.cols());
  for (Eigen::Index i = 0; i < actual.rows(); ++i) {
    for (Eigen::Index j = 0; j < actual.cols(); ++j) {
      EXPECT_NEAR(actual(i, j), expected(i, j), tolerance)
          << "at (" << i + 1 << ", " << j + 1 << ")";
    }
  }
}

constexpr double kHandoutDigits = 1e-4;

TEST(Attention, Exercise2PartCAndDMatchTheHandoutForAbcce) {
  const Problem& p = bundled("consonant-anywhere");
  const HeadWeights w{rows({{1, 1}}), rows({{0, 5}}), rows({{1, 0}, {0, 1}})};
  const auto t = run_head(p.head, w, tokens_of(p, "abcce"));
  expect_near(t.embeddings, rows({{1, 0}, {0, 1}, {0, 1}, {0, 1}, {1, 0}}), 0);
  expect_near(t.Q, rows({{1}, {1}, {1}, {1}, {1}}), 0);
  expect_near(t.K, rows({{0}, {5}, {5}, {5}, {0}}), 0);
  expect_near(
      t.scores,
      rows({{0, 5, 5, 5, 0}, {0, 5, 5, 5, 0}, {0, 5, 5, 5, 0}, {0, 5, 5, 5, 0}, {0, 5, 5, 5, 0}}),
      0);
  expect_near(t.attention,
              rows({{1, 0, 0, 0, 0},
                    {0.0067, 0.9933, 0, 0, 0},
                    {0.0034, 0.4983, 0.4983, 0, 0},
                    {0.0022, 0.3326, 0.3326, 0.3326, 0},
                    {0.0022, 0.3318, 0.3318, 0.3318, 0.0022}}),
              kHandoutDigits);
  expect_near(t.V, rows({{1, 0}, {0, 1}, {0, 1}, {0, 1}, {1, 0}}), 0);
  expect_near(
      t.output,
      rows({{1, 0}, {0.0067, 0.9933}, {0.0034, 0.9966}, {0.0022, 0.9978}, {0.0045, 0.9955}}),
      kHandoutDigits);
}

TEST(Attention, Exercise2PartEUniformKeysGiveTheConsonantProportion) {
  const Problem& p = bundled("consonant-proportion");
  const HeadWeights w{rows({{1, 1}}), rows({{1, 1}}), rows({{1, 0}, {0, 1}})};
  const auto t = run_head(p.head, w, tokens_of(p, "abcce"));
  expect_near(t.attention,
              rows({{1, 0, 0, 0, 0},
                    {0.5, 0.5, 0, 0, 0},
                    {0.3333, 0.3333, 0.3333, 0, 0},
                    {0.25, 0.25, 0.25, 0.25, 0},
                    {0.2, 0.2, 0.2, 0.2, 0.2}}),
              kHandoutDigits);
  expect_near(t.output, rows({{1, 0}, {0.5, 0.5}, {0.3333, 0.6667}, {0.25, 0.75}, {0.4, 0.6}}),
              kHandoutDigits);
}

TEST(Attention, Exercise3PartCAndDMatchTheHandoutForCbcce) {
  const Problem& p = bundled("first-position");
  const HeadWeights w{rows({{1, 1, 0}}), rows({{0, 0, 5}}), rows({{0, 1, 0}, {0, 0, 0}})};
  const auto t = run_head(p.head, w, tokens_of(p, "cbcce"));
  expect_near(t.embeddings, rows({{0, 1, 1}, {0, 1, 0}, {0, 1, 0}, {0, 1, 0}, {1, 0, 0}}), 0);
  expect_near(t.K, rows({{5}, {0}, {0}, {0}, {0}}), 0);
  expect_near(t.attention,
              rows({{1, 0, 0, 0, 0},
                    {0.9933, 0.0067, 0, 0, 0},
                    {0.9867, 0.0066, 0.0066, 0, 0},
                    {0.9802, 0.0066, 0.0066, 0.0066, 0},
                    {0.9738, 0.0066, 0.0066, 0.0066, 0.0066}}),
              kHandoutDigits);
  expect_near(t.V, rows({{1, 0}, {1, 0}, {1, 0}, {1, 0}, {0, 0}}), 0);
  expect_near(t.output, rows({{1, 0}, {1, 0}, {1, 0}, {1, 0}, {0.9934, 0}}), kHandoutDigits);
}

TEST(Softmax, MaskedEntriesGetExactlyZeroWeightAndMaskedScoresAreMinusInfinity) {
  const Problem& p = bundled("consonant-anywhere");
  const HeadWeights w{rows({{1, 1}}), rows({{0, 5}}), rows({{1, 0}, {0, 1}})};
  const auto t = run_head(p.head, w, tokens_of(p, "abc"));
  for (int i = 0; i < 3; ++i) {
    for (int j = i + 1; j < 3; ++j) {
      EXPECT_EQ(t.attention(i, j), 0.0);
      EXPECT_EQ(t.masked_scores(i, j), -std::numeric_limits<double>::infinity());
      EXPECT_EQ(t.scores(i, j), 5.0 * (j > 0 ? 1 : 0));  // before the mask: the raw score
    }
  }
}

TEST(Softmax, ScoresAtTheContractsLimitsStayFinite) {
  // Entries up to 1e6 in every matrix, 64 rows: scores near 1e12·n_q; no Inf, no NaN.
  HeadSpec spec{Matrix::Constant(2, 2, 1e6), std::nullopt, 1.0, true};
  spec.W_E(0, 1) = -1e6;
  const HeadWeights w{Matrix::Constant(64, 2, 1e6), Matrix::Constant(64, 2, -1e6),
                      Matrix::Constant(2, 2, 1e6)};
  TokenString s(40);
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<int>(i % 2);
  const auto t = run_head(spec, w, s);
  EXPECT_TRUE(t.attention.allFinite());
  EXPECT_TRUE(t.output.allFinite());
  for (Eigen::Index i = 0; i < t.attention.rows(); ++i) {
    EXPECT_NEAR(t.attention.row(i).sum(), 1.0, 1e-12);
  }
}

TEST(Softmax, NonCausalHeadsAttendToEveryToken) {
  HeadSpec spec{rows({{1, 0}, {0, 1}}), std::nullopt, 1.0, false};
  const HeadWeights w{rows({{1, 1}}), rows({{1, 1}}), rows({{1, 0}, {0, 1}})};
  const auto t = run_head(spec, w, TokenString{0, 1, 1});
  expect_near(t.attention, Matrix::Constant(3, 3, 1.0 / 3), 1e-15);
  EXPECT_EQ(t.masked_scores, t.scores);
}

TEST(Attention, AgreesWithAnIndependentComputationOnRandomHeads) {
  SplitMix64 rng(7);
  const auto uniform = [&](double low, double high) {
    return low + (high - low) * static_cast<double>(rng.next() >> 11) * 0x1p-53;
  };
  for (int trial = 0; trial < 200; ++trial) {
    const int n_e = 1 + static_cast<int>(rng.next() % 4),
              n_q = 1 + static_cast<int>(rng.next() % 3),
              n_v = 1 + static_cast<int>(rng.next() % 3), L = 1 + static_cast<int>(rng.next() % 12);
    const double range = trial < 100 ? 3.0 : 1e3;  // sharp heads too
    HeadSpec spec{Matrix::NullaryExpr(n_e, 5, [&] { return uniform(-range, range); }),
                  Matrix(Matrix::NullaryExpr(n_e, 12, [&] { return uniform(-1, 1); })),
                  uniform(0.1, 2), trial % 3 != 0};
    const HeadWeights w{Matrix::NullaryExpr(n_q, n_e, [&] { return uniform(-range, range); }),
                        Matrix::NullaryExpr(n_q, n_e, [&] { return uniform(-range, range); }),
                        Matrix::NullaryExpr(n_v, n_e, [&] { return uniform(-2, 2); })};
    TokenString s(static_cast<std::size_t>(L));
    for (auto& t : s) t = static_cast<int>(rng.next() % 5);
    const auto t = run_head(spec, w, s);
    const auto h = testing::independent_head(spec, w, s);
    const double tol = 1e-9 * (1 + h.S.cwiseAbs().maxCoeff());
    expect_near(t.Q, h.Q, tol);
    expect_near(t.K, h.K, tol);
    expect_near(t.scores, h.S, tol);
    expect_near(t.attention, h.A, 1e-9);
    expect_near(t.output, h.out, 1e-8);
    // The output alone is the trace's output to the last bit: a grade and the trace shown
    // for it never disagree.
    EXPECT_EQ(head_output(spec, w, s), t.output) << "trial " << trial;
  }
}

}  // namespace
}  // namespace headgrader

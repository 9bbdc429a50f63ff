// Grading: the exhaustive set is walked as a tree of prefixes (each prefix's new row computed
// once, a failing prefix failing its whole subtree); the examples and random strings are run
// one by one. Both paths use head_math, so they agree bit for bit with the traces shown.
#include "headgrader/grade.h"

#include <cmath>
#include <limits>

#include "head_math.h"
#include "prefix_walk.h"

namespace headgrader {
namespace {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// |out − expected| ≤ tolerance for every component; NaN never passes.
bool row_passes(const double* out, const double* expected, std::size_t n_v, double tolerance) {
  for (std::size_t c = 0; c < n_v; ++c) {
    if (!(std::fabs(out[c] - expected[c]) <= tolerance)) return false;
  }
  return true;
}

// The head along the current prefix of a depth-first walk: row d-1 of each matrix belongs to
// position d, and extending to depth d recomputes only that row.
class PrefixHead {
 public:
  PrefixHead(const HeadSpec& spec, const HeadWeights& w, int max_depth)
      : spec_(spec), w_(w), R_(max_depth, spec.W_E.rows()), Q_(max_depth, w.W_q.rows()),
        K_(max_depth, w.W_k.rows()), V_(max_depth, w.W_V.rows()), scores_(max_depth),
        attention_(max_depth) {}

  // Output at the prefix's last position, the same bits as row L-1 of run_head(prefix).
  void extend(std::span<const int> prefix, double* out) {
    const int i = static_cast<int>(prefix.size()) - 1;
    head_math::embed(spec_, prefix.back(), i, R_.row(i).data());
    head_math::project(w_.W_q, R_.row(i).data(), Q_.row(i).data());
    head_math::project(w_.W_k, R_.row(i).data(), K_.row(i).data());
    head_math::project(w_.W_V, R_.row(i).data(), V_.row(i).data());
    for (int j = 0; j <= i; ++j) {
      scores_[j] = head_math::score(Q_.row(i).data(), K_.row(j).data(), Q_.cols(), spec_.scale);
    }
    masked_softmax_row(scores_.data(), i + 1, i, attention_.data());
    head_math::attend(attention_.data(), i, V_.cols(), [&](int j) { return V_.row(j).data(); },
                      out);
  }

 private:
  const HeadSpec& spec_;
  const HeadWeights& w_;
  RowMajor R_, Q_, K_, V_;
  std::vector<double> scores_, attention_;
};

// Every position of a string passes (the same test as row_passes, on whole matrices).
bool all_rows_pass(const Matrix& output, const Matrix& expected, double tolerance) {
  for (Eigen::Index i = 0; i < output.rows(); ++i) {
    for (Eigen::Index c = 0; c < output.cols(); ++c) {
      if (!(std::fabs(output(i, c) - expected(i, c)) <= tolerance)) return false;
    }
  }
  return true;
}

bool string_passes(const Problem& problem, const HeadWeights& weights, const TokenString& s) {
  return all_rows_pass(run_head(problem.head, weights, s).output, expected_output(problem, s),
                       problem.tolerance);
}

Failure describe_failure(const Problem& problem, const HeadWeights& weights, TokenString s) {
  Failure f;
  f.trace = run_head(problem.head, weights, s);
  f.expected = expected_output(problem, s);
  for (Eigen::Index i = 0; i < f.expected.rows(); ++i) {
    bool fails = false;
    for (Eigen::Index c = 0; c < f.expected.cols(); ++c) {
      const double error = std::fabs(f.trace.output(i, c) - f.expected(i, c));
      if (!(error <= problem.tolerance)) fails = true;
      f.max_error = std::isnan(error) || std::isnan(f.max_error) ? std::nan("")
                                                                 : std::max(f.max_error, error);
    }
    if (fails) f.failing_positions.push_back(static_cast<int>(i) + 1);
  }
  f.input = std::move(s);
  return f;
}

}  // namespace

Matrix expected_output(const Problem& problem, const TokenString& tokens) {
  const int L = static_cast<int>(tokens.size());
  PrefixExpected expected(problem, L);
  RowMajor out(L, problem.n_v);
  for (int i = 0; i < L; ++i) {
    const std::span<const int> prefix(tokens.data(), static_cast<std::size_t>(i) + 1);
    if (expected.extend(prefix, out.row(i).data())) {
      out.row(i).setConstant(std::numeric_limits<double>::quiet_NaN());
    }
  }
  return out;
}

GradeReport grade(const Problem& problem, const HeadWeights& weights, int max_failures) {
  FailureCollector failures(static_cast<std::size_t>(std::max(0, max_failures)));
  std::uint64_t failed = 0;
  const auto& reps = problem.representatives;
  const int E = problem.strings.exhaustive_length;

  // 1. The exhaustive set.
  if (problem.head.causal) {
    PrefixHead head(problem.head, weights, E);
    PrefixExpected expected(problem, E);
    std::vector<double> out(problem.n_v), want(problem.n_v);
    walk_prefixes(reps, E, [&](std::span<const int> prefix) {
      head.extend(prefix, out.data());
      (void)expected.extend(prefix, want.data());  // cannot fault: checked at load
      if (row_passes(out.data(), want.data(), problem.n_v, problem.tolerance)) return true;
      const int below = E - static_cast<int>(prefix.size());
      failed += 1 + exhaustive_count(reps.size(), below);
      failures.add_subtree(prefix, reps, E);
      return false;
    });
  } else {
    // Without the mask a position sees the whole string: no prefix can be shared.
    walk_prefixes(reps, E, [&](std::span<const int> prefix) {
      TokenString s(prefix.begin(), prefix.end());
      if (!string_passes(problem, weights, s)) {
        ++failed;
        failures.add(s);
      }
      return true;
    });
  }

  // 2. Examples and random strings outside the exhaustive set.
  for (const auto& s : problem.extra_strings) {
    if (!string_passes(problem, weights, s)) {
      ++failed;
      failures.add(s);
    }
  }

  GradeReport report;
  report.problem = problem.id;
  report.total = problem.tested_total();
  report.failed = failed;
  report.passed_count = report.total - failed;
  report.passed = failed == 0;
  report.score = static_cast<double>(report.passed_count) / static_cast<double>(report.total);
  for (const auto& s : problem.examples) {
    ExampleResult example{s, false, expected_output(problem, s),
                          run_head(problem.head, weights, s).output};
    example.passed = all_rows_pass(example.output, example.expected, problem.tolerance);
    report.examples.push_back(std::move(example));
  }
  for (const auto& s : failures.kept()) {
    report.failures.push_back(describe_failure(problem, weights, s));
  }
  return report;
}

}  // namespace headgrader

// Grading: the exhaustive set as a tree of prefixes (exhaustive.cc), the examples and random
// strings one by one, then a trace for each failure kept. grade_each_string is the plain
// definition that grade must equal.
#include "headgrader/grade.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "exhaustive.h"
#include "failure_collector.h"
#include "headgrader/grade_cancel.h"
#include "prefix_expected.h"
#include "prefix_judge.h"
#include "prefix_walk.h"
#include "row_verdict.h"

namespace headgrader {
namespace {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// |output − expected| ≤ tolerance in every component of row i (NaN fails): the one rule
// for a position passing.
bool row_passes(const Matrix& output, const Matrix& expected, Eigen::Index i, double tolerance) {
  for (Eigen::Index c = 0; c < output.cols(); ++c) {
    if (!(std::fabs(output(i, c) - expected(i, c)) <= tolerance)) return false;
  }
  return true;
}

bool all_rows_pass(const Matrix& output, const Matrix& expected, double tolerance) {
  for (Eigen::Index i = 0; i < output.rows(); ++i) {
    if (!row_passes(output, expected, i, tolerance)) return false;
  }
  return true;
}

// The 1-based positions that do not pass: what a student's report marks as wrong.
std::vector<int> failing_positions_of(const Matrix& output, const Matrix& expected,
                                      double tolerance) {
  std::vector<int> positions;
  for (Eigen::Index i = 0; i < output.rows(); ++i) {
    if (!row_passes(output, expected, i, tolerance)) positions.push_back(static_cast<int>(i) + 1);
  }
  return positions;
}

// max |output − expected| over every component of every position (NaN when one is NaN).
double string_error(const Problem& problem, const HeadWeights& weights, const TokenString& s) {
  const Matrix out = head_output(problem.head, weights, s);
  const Matrix want = expected_output(problem, s);
  double worst = 0;
  for (Eigen::Index i = 0; i < out.rows(); ++i) {
    for (Eigen::Index c = 0; c < out.cols(); ++c) {
      const double error = std::fabs(out(i, c) - want(i, c));
      worst = worst_of(worst, error);
    }
  }
  return worst;
}

// The worst error over every tested string, each run on its own: grade_each_string's margin
// of a passing head (grade's judges note it as they go).
double worst_error_each_string(const Problem& problem, const HeadWeights& weights) {
  double worst = 0;
  const auto note = [&](const TokenString& s) {
    const double error = string_error(problem, weights, s);
    worst = worst_of(worst, error);
  };
  walk_prefixes(problem.representatives(), problem.strings.exhaustive_length,
                [&](std::span<const int> prefix) {
                  note(TokenString(prefix.begin(), prefix.end()));
                  return true;
                });
  for (const auto& s : problem.extra_strings()) note(s);
  return worst;
}

Failure describe_failure(const Problem& problem, const HeadWeights& weights, TokenString s) {
  Failure f;
  f.trace = run_head(problem.head, weights, s);
  f.expected = expected_output(problem, s);
  f.failing_positions = failing_positions_of(f.trace.output, f.expected, problem.tolerance);
  for (Eigen::Index i = 0; i < f.expected.rows(); ++i) {
    for (Eigen::Index c = 0; c < f.expected.cols(); ++c) {
      const double error = std::fabs(f.trace.output(i, c) - f.expected(i, c));
      f.max_error = worst_of(f.max_error, error);
    }
  }
  f.input = std::move(s);
  return f;
}

// The extra strings, the counts, the examples and the traces of the failures kept, by the
// grade's judge (`judge` for a causal head, `unmasked` for one without the mask), or with
// both null each extra string on its own.
GradeReport finish_report(const Problem& problem, const HeadWeights& weights,
                          FailureCollector& failures, std::uint64_t failed, PrefixJudge* judge,
                          UnmaskedJudge* unmasked = nullptr) {
  // A correct head passes them all, known without a look at each.
  const bool all_pass = judge && judge->every_tested_string_passes();
  for (std::size_t i = 0; i < problem.extra_strings().size() && !all_pass && !grading_cancelled();
       ++i) {
    const TokenString& s = problem.extra_strings()[i];
    const bool passes = judge      ? judge->extra_string_passes(i)
                        : unmasked ? unmasked->string_passes(s)
                                   : string_passes(problem, weights, s);
    if (!passes) {
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
  report.examples.reserve(problem.examples.size());
  for (std::size_t i = 0; i < problem.examples.size(); ++i) {
    const TokenString& s = problem.examples[i];
    ExampleResult example;
    example.input = s;
    example.expected = problem.examples_expected()[i];  // derived with the problem
    example.output = head_output(problem.head, weights, s);
    example.failing_positions =
        failing_positions_of(example.output, example.expected, problem.tolerance);
    example.passed = example.failing_positions.empty();
    report.examples.push_back(std::move(example));
  }
  report.failures.reserve(failures.kept().size());
  for (const auto& s : failures.kept()) {
    report.failures.push_back(describe_failure(problem, weights, s));
  }
  return report;
}

FailureCollector collector_for(int max_failures) {
  return FailureCollector(static_cast<std::size_t>(std::max(0, max_failures)));
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

bool string_passes(const Problem& problem, const HeadWeights& weights, const TokenString& s) {
  return all_rows_pass(head_output(problem.head, weights, s), expected_output(problem, s),
                       problem.tolerance);
}

GradeReport grade(const Problem& problem, const HeadWeights& weights, int max_failures) {
  auto failures = collector_for(max_failures);
  // One judge for the exhaustive set and the extra strings: verdicts found for the one serve
  // the other.
  if (!problem.head.causal) {
    UnmaskedJudge judge(problem, weights);
    const std::uint64_t failed = grade_exhaustive(problem, judge, failures);
    GradeReport report = finish_report(problem, weights, failures, failed, nullptr, &judge);
    if (report.passed) report.worst_error = judge.worst_error();
    return report;
  }
  PrefixJudge judge(problem, weights);
  const std::uint64_t failed = grade_exhaustive(problem, judge, failures);
  GradeReport report = finish_report(problem, weights, failures, failed, &judge);
  if (report.passed) report.worst_error = judge.worst_error();
  return report;
}

bool passes_every_tested_string(const Problem& problem, const HeadWeights& weights) {
  const int E = problem.strings.exhaustive_length;
  bool failed = false;
  if (problem.head.causal) {
    PrefixJudge judge(problem, weights);
    if (judge.every_tested_string_passes()) return true;
    if (judge.some_tested_string_fails()) return false;
    FailureCollector none(0);
    if (const auto counted = judge.count_exhaustive_failures(E, none)) {
      failed = *counted > 0;
    } else {
      walk_prefixes(problem.representatives(), E, [&](std::span<const int> prefix) {
        if (!failed && !judge.passes(prefix)) failed = true;
        return !failed;  // after the first failure, nothing more is descended into
      });
    }
    for (std::size_t i = 0; i < problem.extra_strings().size() && !failed; ++i) {
      failed = !judge.extra_string_passes(i);
    }
    return !failed;
  }
  UnmaskedJudge judge(problem, weights);
  walk_prefixes(problem.representatives(), E, [&](std::span<const int> s) {
    if (!failed) failed = !judge.string_passes(s);
    return !failed;
  });
  for (std::size_t i = 0; i < problem.extra_strings().size() && !failed; ++i) {
    failed = !judge.string_passes(problem.extra_strings()[i]);
  }
  return !failed;
}

GradeReport grade_each_string(const Problem& problem, const HeadWeights& weights,
                              int max_failures) {
  auto failures = collector_for(max_failures);
  std::uint64_t failed = 0;
  walk_prefixes(problem.representatives(), problem.strings.exhaustive_length,
                [&](std::span<const int> prefix) {
                  const TokenString s(prefix.begin(), prefix.end());
                  if (!string_passes(problem, weights, s)) {
                    ++failed;
                    failures.add(s);
                  }
                  return true;  // every string of the set, each on its own
                });
  GradeReport report = finish_report(problem, weights, failures, failed, nullptr);
  if (report.passed) report.worst_error = worst_error_each_string(problem, weights);
  return report;
}

}  // namespace headgrader

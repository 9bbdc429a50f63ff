// A grade for a person at a terminal: what failed, where, and each matrix of the trace laid
// out as in the handout (rows are query tokens, columns key tokens), to 4 decimals.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "headgrader/report.h"
#include "matrix_text.h"

namespace headgrader {
namespace {

std::string row_vector(const Matrix& m, Eigen::Index i) {
  std::string out = "[";
  for (Eigen::Index c = 0; c < m.cols(); ++c) out += (c ? ", " : "") + format_number(m(i, c));
  return out + "]";
}

// Whether row i (0-based) is among the 1-based failing positions.
bool is_listed(const std::vector<int>& failing_positions, Eigen::Index i) {
  return std::find(failing_positions.begin(), failing_positions.end(), static_cast<int>(i) + 1) !=
         failing_positions.end();
}

}  // namespace

std::string rows_text(const Problem& problem, const TokenString& input, const Matrix& expected,
                      const Matrix& output, const std::vector<int>& failing_positions) {
  std::ostringstream out;
  for (Eigen::Index i = 0; i < expected.rows(); ++i) {
    const bool fails = is_listed(failing_positions, i);
    out << "  position " << i + 1 << " (" << problem.spell({input[static_cast<std::size_t>(i)]})
        << "): expected " << row_vector(expected, i) << ", got " << row_vector(output, i)
        << (fails ? "   <- wrong" : "") << "\n";
  }
  return out.str();
}

std::string margin_text(const Margin& m) {
  std::ostringstream out;
  out << "worst error " << format_number(m.worst_error) << " of the tolerance "
      << number_to_json(m.tolerance).dump() << " (slack " << format_number(m.slack) << ")";
  if (m.score_gap) out << ", score gap " << format_number(*m.score_gap);
  return out.str();
}

std::string feedback_text(const GradeReport& report) {
  std::ostringstream out;
  if (report.margin) out << "margin: " << margin_text(*report.margin) << "\n";
  if (!report.diagnosis.empty()) {
    out << "what went wrong (each proven by grading a changed copy of your head):\n";
    for (const auto& d : report.diagnosis) {
      out << "  " << d.mistake << ": " << d.message << "\n    hint: " << d.hint << "\n";
    }
  }
  if (!report.diagnosis_not_tried.empty()) {
    out << "not tried (grading this problem takes too long to try them):";
    for (const auto& name : report.diagnosis_not_tried) out << " " << name;
    out << "\n";
  }
  return out.str();
}

std::string report_to_text(const Problem& problem, const GradeReport& report) {
  std::ostringstream out;
  out << problem.id << ": " << (report.passed ? "PASSED" : "FAILED") << " — " << report.passed_count
      << " of " << report.total << " tested strings pass (score " << report.score << ")\n";
  out << feedback_text(report);
  for (const auto& e : report.examples) {
    out << "\nexample \"" << problem.spell(e.input) << "\": " << (e.passed ? "passes" : "fails")
        << "\n";
    out << rows_text(problem, e.input, e.expected, e.output, e.failing_positions);
  }
  std::size_t n = 0;
  for (const auto& f : report.failures) {
    std::vector<std::string> labels;
    for (int t : f.input) labels.push_back(problem.spell({t}));
    out << "\nfailure " << ++n << " of " << report.failed << ": \"" << problem.spell(f.input)
        << "\" (max error " << format_number(f.max_error) << ", tolerance " << problem.tolerance
        << ")\n";
    out << rows_text(problem, f.input, f.expected, f.trace.output, f.failing_positions);
    const auto& t = f.trace;
    print_matrix(out, "embeddings r_i (one row per token)", t.embeddings, labels, {});
    print_matrix(out, "Q", t.Q, labels, {});
    print_matrix(out, "K", t.K, labels, {});
    print_matrix(out, "V", t.V, labels, {});
    print_matrix(out, "scores = scale · Q Kᵀ (rows: queries, columns: keys)", t.scores, labels,
                 labels);
    print_matrix(out, "masked scores", t.masked_scores, labels, labels);
    print_matrix(out, "attention = softmax of each row", t.attention, labels, labels);
    print_matrix(out, "output = attention · V", t.output, labels, {});
  }
  if (report.failures.size() < report.failed) {
    out << "\n(" << report.failed - report.failures.size()
        << " more failing strings not shown; raise max_failures to see more)\n";
  }
  return out.str();
}

}  // namespace headgrader

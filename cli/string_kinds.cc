#include "string_kinds.h"

#include <cmath>
#include <set>

#include "headgrader/report.h"

namespace headgrader::cli {
namespace {

std::vector<int> failing_positions(const Matrix& output, const Matrix& expected, double tolerance) {
  std::vector<int> positions;
  for (Eigen::Index i = 0; i < output.rows(); ++i) {
    for (Eigen::Index c = 0; c < output.cols(); ++c) {
      if (!(std::fabs(output(i, c) - expected(i, c)) <= tolerance)) {  // NaN fails too
        positions.push_back(static_cast<int>(i) + 1);
        break;
      }
    }
  }
  return positions;
}

std::string failure_text(const Problem& p, const TokenString& s, const Matrix& expected,
                         const Matrix& output, const std::vector<int>& positions) {
  return "\"" + p.spell(s) + "\":\n" + rows_text(p, s, expected, output, positions);
}

std::string strings_of(std::uint64_t n) {
  return std::to_string(n) + (n == 1 ? " string" : " strings");
}

}  // namespace

std::vector<StringKindResult> results_by_kind(const Problem& p, const HeadWeights& w,
                                              const GradeReport& report) {
  // The extra strings are the examples (those not in the exhaustive set, each once), then
  // the random strings: the leading ones that are examples are the examples' share.
  const std::set<TokenString> examples(p.examples.begin(), p.examples.end());
  std::size_t from_examples = 0;
  while (from_examples < p.extra_strings().size() &&
         examples.count(p.extra_strings()[from_examples]) != 0) {
    ++from_examples;
  }
  StringKindResult ex{"examples", "", from_examples, 0, ""};
  StringKindResult random{"random", "", p.extra_strings().size() - from_examples, 0, ""};
  for (std::size_t i = 0; i < p.extra_strings().size(); ++i) {
    const TokenString& s = p.extra_strings()[i];
    if (string_passes(p, w, s)) continue;
    StringKindResult& kind = i < from_examples ? ex : random;
    ++kind.failed;
    if (kind.first_failure.empty() && &kind == &random) {
      const Matrix expected = expected_output(p, s), output = head_output(p.head, w, s);
      kind.first_failure =
          failure_text(p, s, expected, output, failing_positions(output, expected, p.tolerance));
    }
  }
  // The examples as the problem lists them (the report has each), in its order.
  for (const auto& e : report.examples) {
    if (!e.passed && ex.first_failure.empty()) {
      ex.first_failure = failure_text(p, e.input, e.expected, e.output, e.failing_positions);
    }
  }
  ex.title = "the problem's examples (" + strings_of(ex.total) +
             (from_examples < p.examples.size() ? ", the others are in the exhaustive set)" : ")");
  random.title = "random strings up to length " + std::to_string(p.strings.max_length) + " (" +
                 strings_of(random.total) + ")";

  StringKindResult exhaustive{
      "exhaustive",
      "every string up to length " + std::to_string(p.strings.exhaustive_length) +
          " over one letter of each group (" + strings_of(p.exhaustive_total()) + ")",
      p.exhaustive_total(), report.failed - ex.failed - random.failed, ""};
  if (exhaustive.failed > 0 && !report.failures.empty()) {
    const Failure& f = report.failures.front();
    exhaustive.first_failure =
        failure_text(p, f.input, f.expected, f.trace.output, f.failing_positions);
  }
  std::vector<StringKindResult> out;
  for (auto* kind : {&ex, &exhaustive, &random}) {
    if (kind->total > 0) out.push_back(std::move(*kind));
  }
  return out;
}

std::string how_to_read_a_failure(const Problem& p) {
  return "How to read a failure: each test below is one kind of tested string. A failing "
         "string is shown one position a line, \"position i (letter): expected [...], got "
         "[...]\": the head's output at that position should equal the expected vector within " +
         number_to_json(p.tolerance).dump() +
         " in every component; \"<- wrong\" marks the positions that are not. To see every "
         "matrix of the head on a string (Q, K, V, scores, attention, output), run "
         "`headgrader grade --text --problem " +
         p.id + " YOUR_FILE.json`.\n";
}

}  // namespace headgrader::cli

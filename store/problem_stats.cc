#include "problem_stats.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/limits.h"

namespace headgrader::store {

ProblemStats compute_stats(std::string problem, const StatsInputs& inputs) {
  ProblemStats stats;
  stats.problem = std::move(problem);
  stats.submissions = inputs.submissions;
  stats.students = static_cast<std::int64_t>(inputs.students.size());
  std::int64_t first_passed = 0;
  std::map<std::string, std::int64_t> failing, named;
  std::map<std::string, VariantCount> variants;
  for (const StudentSummary& student : inputs.students) {
    const SubmissionRecord& latest = student.latest;
    if (latest.passed) ++stats.students_passed;
    if (student.first_passed) ++first_passed;
    std::size_t bin = 0;
    if (latest.tests_total > 0) {
      bin = static_cast<std::size_t>(latest.tests_passed * 10 / latest.tests_total);
    }
    ++stats.score_histogram[std::min(bin, kScoreBins - 1)];
    // A student counts once per input, however often the answer shows it.
    const std::set<std::string> shown(latest.failing_inputs.begin(), latest.failing_inputs.end());
    for (const std::string& input : shown) ++failing[input];
    const std::set<std::string> mistakes(latest.mistakes.begin(), latest.mistakes.end());
    for (const std::string& mistake : mistakes) ++named[mistake];
    if (!latest.variant.empty()) {
      VariantCount& variant = variants[latest.variant];
      ++variant.students;
      if (latest.passed) ++variant.students_passed;
    }
  }
  if (stats.students > 0) {
    stats.first_try_pass_rate =
        static_cast<double>(first_passed) / static_cast<double>(stats.students);
  }
  for (const auto& [input, students] : failing) stats.common_failures.push_back({input, students});
  std::stable_sort(
      stats.common_failures.begin(), stats.common_failures.end(),
      [](const CommonFailure& a, const CommonFailure& b) { return a.students > b.students; });
  if (stats.common_failures.size() > limits::kMaxCommonFailures) {
    stats.common_failures.resize(limits::kMaxCommonFailures);
  }
  // From the map: by name already, so the stable sort leaves ties by name.
  for (const auto& [mistake, students] : named) stats.mistakes.push_back({mistake, students});
  std::stable_sort(
      stats.mistakes.begin(), stats.mistakes.end(),
      [](const MistakeCount& a, const MistakeCount& b) { return a.students > b.students; });
  for (auto& [id, count] : variants) {
    count.variant = id;
    stats.variants.push_back(std::move(count));
  }
  return stats;
}

}  // namespace headgrader::store

// Named mistakes run (API.md §13, §14): the library's entries (mistake_library.h) tried in
// order on a failing submission within the diagnosis budget, then the mistakes the problem's
// author names, or applied to a problem's reference for lint; a passing head's margin.
#include "headgrader/diagnosis.h"

#include <optional>

#include "mistake_library.h"
#include "score_gap.h"

namespace headgrader {

std::vector<std::string> mistake_names() {
  std::vector<std::string> names;
  for (const Mistake& m : mistake_library()) names.emplace_back(m.name);
  return names;
}

DiagnosisResult diagnose(const Problem& problem, const HeadWeights& weights) {
  Trials trials(problem, weights);
  DiagnosisResult result;
  for (const Mistake& m : mistake_library()) {
    if (m.excluded_by) {
      bool excluded = false;
      for (const auto& d : result.found) excluded = excluded || d.mistake == m.excluded_by;
      if (excluded) continue;
    }
    if (!m.applies(trials)) continue;
    if (!trials.affords(m.max_gradings)) {
      result.not_tried.emplace_back(m.name);
      continue;
    }
    if (auto found = m.prove(trials)) result.found.push_back(std::move(*found));
  }
  // The author's mistakes (API.md §14), after the library's: the head itself graded
  // against each wrong target.
  for (std::size_t k = 0; k < problem.mistake_targets().size(); ++k) {
    const AuthorMistake& m = problem.mistakes[k];
    if (!trials.affords(1)) {
      result.not_tried.push_back(m.name);
    } else if (trials.passes_against(*problem.mistake_targets()[k], weights)) {
      result.found.push_back({m.name, problem.shown_message(k), problem.shown_hint(k)});
    }
  }
  result.gradings = trials.gradings();
  return result;
}

Margin margin_of(const Problem& problem, const HeadWeights& weights, double worst_error) {
  Margin margin;
  margin.worst_error = worst_error;
  margin.tolerance = problem.tolerance;
  margin.slack = problem.tolerance - worst_error;
  margin.score_gap = smallest_score_gap(problem, weights);
  return margin;
}

GradeReport grade_with_diagnosis(const Problem& problem, const HeadWeights& weights,
                                 int max_failures) {
  GradeReport report = grade(problem, weights, max_failures);
  if (report.passed) {
    report.margin = margin_of(problem, weights, report.worst_error);
  } else {
    auto diagnosis = diagnose(problem, weights);
    report.diagnosis = std::move(diagnosis.found);
    report.diagnosis_not_tried = std::move(diagnosis.not_tried);
  }
  return report;
}

LintReport lint_problem(const Problem& problem) {
  LintReport lint;
  const Trials on_reference(problem, problem.reference);
  const bool uniform = attention_is_uniform(problem, problem.reference);
  for (const Mistake& m : mistake_library()) {
    if (m.about_attention && uniform) continue;
    const std::vector<LintChange> changes = m.lint(problem, on_reference);
    if (changes.empty()) continue;
    MistakeCaught row{m.name, true, std::nullopt};
    std::optional<TokenString> caught_last;
    for (const LintChange& change : changes) {
      const GradeReport made = grade(problem, change.weights, 1);
      if (made.passed) {
        lint.warnings.push_back({"strings", "the reference with " + change.what +
                                                " passes every tested string: the "
                                                "tests cannot tell that mistake (" +
                                                m.name +
                                                ") from the solution; "
                                                "raise strings.max_length or lower the tolerance"});
        row.caught = false;
        caught_last.reset();
        break;
      }
      // Grading lists failures shortest first, then in alphabet order (grade.h).
      const TokenString& shortest = made.failures.front().input;
      if (!caught_last || shortlex_less(*caught_last, shortest)) caught_last = shortest;
    }
    if (caught_last) row.by = problem.spell(*caught_last);
    lint.mistakes_caught.push_back(std::move(row));
  }
  const GradeReport reference = grade(problem, problem.reference, 0);
  lint.reference_margin = margin_of(problem, problem.reference, reference.worst_error);
  return lint;
}

}  // namespace headgrader

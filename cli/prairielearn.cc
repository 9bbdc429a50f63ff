// `headgrader prairielearn` (API.md §12): PrairieLearn's external-grader results.json
// (docs/externalGrading.md of PrairieLearn: `gradable`, `score` in 0..1, `message`, `output`,
// `tests` with `name`, `points`, `max_points`, `message`, `output`). Each kind of tested
// string is a test with one point a string; `score` is the grade's score. A file that cannot
// be graded is `"gradable": false` with `format_errors`, which PrairieLearn shows without
// taking an attempt. Graded on the student's variant (with --variant-secret), `message` names
// it and `output` begins with the student's problem, even when the file is not gradable, so
// that submitting any file shows a student their problem without costing an attempt.
#include <string>

#include "headgrader/report.h"
#include "platform_command.h"
#include "platform_student.h"
#include "string_kinds.h"

namespace headgrader::cli {
namespace {

// Which problem the student was graded on, for `message` (empty unless for a student).
std::string variant_sentence(const PlatformOutcome& o) {
  if (!o.for_student) return "";
  const Problem& p = *o.problem;
  return " Graded on " + p.id + (o.pool.empty() ? "" : " (from " + o.pool + ")") +
         (p.variant.empty() ? ", as written." : ", your variant " + p.variant + ".");
}

Json prairielearn_results(const PlatformOutcome& o, double /*points: one a string*/) {
  Json out = Json::object();
  if (!o.report) {
    out["gradable"] = false;
    out["message"] = "Your submission could not be graded: " + o.not_gradable + variant_sentence(o);
    if (o.for_student) out["output"] = student_problem_text(o);
    out["format_errors"] = Json::array({o.not_gradable});
    out["tests"] = Json::array();
    return out;
  }
  const Problem& p = *o.problem;
  const GradeReport& r = *o.report;
  Json tests = Json::array();
  for (const auto& kind : results_by_kind(p, o.weights, r)) {
    const bool passed = kind.failed == 0;
    tests.push_back(
        Json{{"name", kind.kind},
             {"description", kind.title},
             {"points", kind.total - kind.failed},
             {"max_points", kind.total},
             {"message",
              passed ? "all " + std::to_string(kind.total) + " pass"
                     : std::to_string(kind.failed) + " of " + std::to_string(kind.total) + " fail"},
             {"output", passed ? "" : "The first failing string, " + kind.first_failure}});
  }
  out["gradable"] = true;
  out["score"] = number_to_json(r.score);
  out["message"] = std::string(r.passed ? "Passed: " : "Failed: ") +
                   std::to_string(r.passed_count) + " of " + std::to_string(r.total) +
                   " tested strings pass." + variant_sentence(o);
  out["output"] = student_problem_text(o) + feedback_text(r) + "\n" + how_to_read_a_failure(p);
  out["tests"] = std::move(tests);
  return out;
}

}  // namespace

int prairielearn_command(const std::vector<std::string>& args) {
  return run_platform_command("prairielearn", args,
                              {"/grade/student",
                               "/grade/results",
                               {"--data", "/grade/data/data.json", prairielearn_student}},
                              /*with_points=*/false, prairielearn_results);
}

}  // namespace headgrader::cli

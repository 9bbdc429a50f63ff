// `headgrader gradescope` (API.md §12): Gradescope's results.json
// (https://gradescope-autograders.readthedocs.io/en/latest/specs/) for one submission. Each
// kind of tested string is a test worth its share of --points (default 1), so the tests add
// up to the top-level score: points × the grade's score. Everything is "visible" at once:
// the student needs the failing string to fix the head. Graded on the student's variant (with
// --variant-secret), `output` begins with their problem, even when the file is not gradable
// (score 0: Gradescope keeps it as a submission, but the student sees their problem).
#include <string>

#include "headgrader/report.h"
#include "platform_command.h"
#include "platform_student.h"
#include "string_kinds.h"

namespace headgrader::cli {
namespace {

std::string summary_line(const Problem& p, const GradeReport& r) {
  return p.id + ": " + (r.passed ? "PASSED" : "FAILED") + " — " + std::to_string(r.passed_count) +
         " of " + std::to_string(r.total) + " tested strings pass\n";
}

Json gradescope_results(const PlatformOutcome& o, double points) {
  Json out = Json::object();
  if (!o.report) {
    out["score"] = 0;
    out["output"] = student_problem_text(o) +
                    "Your submission could not be graded: " + o.not_gradable +
                    "\nNothing was graded; fix the file and submit again.\n";
    out["output_format"] = "text";
    out["visibility"] = "visible";
    out["stdout_visibility"] = "hidden";
    out["tests"] = Json::array();
    return out;
  }
  const Problem& p = *o.problem;
  const GradeReport& r = *o.report;
  const double total = static_cast<double>(r.total);
  Json tests = Json::array();
  for (const auto& kind : results_by_kind(p, o.weights, r)) {
    const bool passed = kind.failed == 0;
    tests.push_back(Json{
        {"name", kind.kind + ": " + kind.title},
        {"score", number_to_json(points * static_cast<double>(kind.total - kind.failed) / total)},
        {"max_score", number_to_json(points * static_cast<double>(kind.total) / total)},
        {"status", passed ? "passed" : "failed"},
        {"output", passed ? "all " + std::to_string(kind.total) + " pass\n"
                          : std::to_string(kind.failed) + " of " + std::to_string(kind.total) +
                                " fail. The first failing string, " + kind.first_failure},
        {"visibility", "visible"}});
  }
  out["score"] = number_to_json(points * r.score);
  out["output"] = student_problem_text(o) + summary_line(p, r) + feedback_text(r) + "\n" +
                  how_to_read_a_failure(p);
  out["output_format"] = "text";
  out["test_output_format"] = "text";
  out["visibility"] = "visible";
  out["stdout_visibility"] = "hidden";
  out["tests"] = std::move(tests);
  return out;
}

}  // namespace

int gradescope_command(const std::vector<std::string>& args) {
  return run_platform_command(
      "gradescope", args,
      {"/autograder/submission",
       "/autograder/results",
       {"--metadata", "/autograder/submission_metadata.json", gradescope_student}},
      /*with_points=*/true, gradescope_results);
}

}  // namespace headgrader::cli

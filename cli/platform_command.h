// What `headgrader gradescope` and `headgrader prairielearn` share (API.md §12): their flags,
// loading the problem, reading the student's file and grading it with the same pipeline as
// `headgrader grade`, and writing the platform's results.json. Each platform's own file
// (gradescope.cc, prairielearn.cc) only turns the outcome into that platform's JSON.
// Thread-safety: runs once per process; no shared state.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "headgrader/grade.h"
#include "headgrader/problem.h"
#include "headgrader/report.h"

namespace headgrader::cli {

struct PlatformPaths {
  std::filesystem::path submission_dir;  // where the student's *.json is
  std::filesystem::path results_dir;     // where results.json goes
};

// One run: either a graded submission or the reason it is not gradable.
struct PlatformOutcome {
  const Problem* problem = nullptr;
  std::optional<GradeReport> report;  // set when graded
  HeadWeights weights;                // the graded head (when graded)
  std::string not_gradable;           // the reason, for the student (when not graded)
};

using PlatformWriter = Json (*)(const PlatformOutcome& outcome, double points);

// Parses `args` (--problem ID, --problems DIR, --submission DIR, --results DIR and, when
// `with_points`, --points N), grades, and writes write(outcome) as DIR/results.json. Exit
// 0 once the results are written (graded or not gradable), 2 on a bad command, an unknown
// problem or a problem folder with defects (instructor errors: the reason goes to stderr).
int run_platform_command(const std::string& command, const std::vector<std::string>& args,
                         const PlatformPaths& defaults, bool with_points, PlatformWriter write);

int gradescope_command(const std::vector<std::string>& args);
int prairielearn_command(const std::vector<std::string>& args);

}  // namespace headgrader::cli

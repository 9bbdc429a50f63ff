// What `headgrader gradescope` and `headgrader prairielearn` share (API.md §12, §15): their
// flags, loading the problem (the student's variant, with a secret), reading the student's
// file and grading it with the same pipeline as `headgrader grade`, and writing the platform's
// results.json. Each platform's own file (gradescope.cc, prairielearn.cc) only turns the
// outcome into that platform's JSON.
// Thread-safety: runs once per process; no shared state.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "headgrader/grade.h"
#include "headgrader/problem.h"
#include "headgrader/report.h"
#include "headgrader/result.h"

namespace headgrader::cli {

// Where a platform says who the student is (cli/platform_student.h): the flag that names the
// file, its default and how the student is read from it.
struct StudentSource {
  std::string flag;  // "--metadata", "--data"
  std::filesystem::path default_file;
  Result<std::string> (*read)(const std::filesystem::path& file, const std::string& flag);
};

struct PlatformPaths {
  std::filesystem::path submission_dir;  // where the student's *.json is
  std::filesystem::path results_dir;     // where results.json goes
  StudentSource student;
};

// One run: either a graded submission or the reason it is not gradable.
struct PlatformOutcome {
  const Problem* problem = nullptr;   // the student's variant when for_student
  std::optional<GradeReport> report;  // set when graded
  HeadWeights weights;                // the graded head (when graded)
  std::string not_gradable;           // the reason, for the student (when not graded)
  // Graded for a student (a secret and a student were given): the results then begin with
  // student_problem_text, graded or not, so that the student reads which problem is theirs.
  bool for_student = false;
  std::string pool;  // the pool --problem named, when it is one; `problem` is its member
};

using PlatformWriter = Json (*)(const PlatformOutcome& outcome, double points);

// Parses `args` (--problem ID, --problems DIR, --submission DIR, --results DIR,
// --variant-secret FILE, --student S, the platform's student.flag FILE and, when
// `with_points`, --points N), grades, and writes write(outcome) as DIR/results.json. With a
// secret (--variant-secret, else HEADGRADER_VARIANT_SECRET_FILE) the submission is graded on
// the student's variant (API.md §15) of the problem, or of their member when --problem is a
// pool; the student is --student, else read from the platform's file. Without one it is
// graded on the problem as written and that file is not read. Exit 0 once the results are
// written (graded or not gradable), 2 on a bad command, an unknown problem, a problem folder
// with defects, a bad secret, no student with a secret, a pool without a secret or a variant
// with defects (instructor errors: the reason goes to stderr, no results are written).
int run_platform_command(const std::string& command, const std::vector<std::string>& args,
                         const PlatformPaths& defaults, bool with_points, PlatformWriter write);

// For a student's results (empty unless outcome.for_student): which problem was graded (the
// variant's id, the pool's member) and the student's problem (headgrader/problem_text.h),
// ending with a blank line.
std::string student_problem_text(const PlatformOutcome& outcome);

int gradescope_command(const std::vector<std::string>& args);
int prairielearn_command(const std::vector<std::string>& args);

}  // namespace headgrader::cli

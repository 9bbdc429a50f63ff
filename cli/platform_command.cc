#include "platform_command.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "common/variant_secret_file.h"
#include "headgrader/diagnosis.h"
#include "headgrader/limits.h"
#include "headgrader/pool.h"
#include "headgrader/problem.h"
#include "headgrader/problem_text.h"
#include "headgrader/submission.h"
#include "headgrader/variant.h"
#include "submission_folder.h"

namespace headgrader::cli {

std::string student_problem_text(const PlatformOutcome& o) {
  if (!o.for_student) return "";
  const Problem& p = *o.problem;
  std::string text = "Your problem: " + p.id;
  if (!o.pool.empty()) text += " (drawn for you from " + o.pool + ")";
  text += p.variant.empty() ? ", as written" : ", your variant " + p.variant;
  text += ". Your file is graded on this problem.\n\n";
  return text + problem_text(p) + "\n";
}

int run_platform_command(const std::string& command, const std::vector<std::string>& args,
                         const PlatformPaths& defaults, bool with_points, PlatformWriter write) {
  std::string problem_id, problems_dir = default_problems_dir().string();
  PlatformPaths paths = defaults;
  double points = 1;
  std::optional<std::string> secret_file, student;
  const auto fail = [&](const std::string& what) {
    std::cerr << command << ": " << what << "\n";
    return 2;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    const bool known = flag == "--problem" || flag == "--problems" || flag == "--submission" ||
                       flag == "--results" || flag == "--variant-secret" || flag == "--student" ||
                       flag == paths.student.flag || (with_points && flag == "--points");
    if (!known) return fail("unexpected argument \"" + flag + "\"");
    if (i + 1 == args.size()) return fail(flag + " needs a value");
    const std::string& value = args[++i];
    if (flag == "--problem") problem_id = value;
    if (flag == "--problems") problems_dir = value;
    if (flag == "--submission") paths.submission_dir = value;
    if (flag == "--results") paths.results_dir = value;
    if (flag == "--variant-secret") secret_file = value;
    if (flag == paths.student.flag) paths.student.default_file = value;
    if (flag == "--student") {
      if (value.empty()) return fail("--student needs the student's identity");
      student = value;
    }
    if (flag == "--points") {
      char* end = nullptr;
      points = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != '\0' || !std::isfinite(points) || points <= 0) {
        return fail("--points must be a number greater than 0; it is \"" + value + "\"");
      }
    }
  }
  if (problem_id.empty()) return fail("needs --problem ID");
  // The secret as the server reads it (common/variant_secret_file.h); a bad one is the
  // instructor's to fix, and grading every student on the problem as written instead would
  // hide it.
  if (!secret_file) {
    if (const char* env = std::getenv("HEADGRADER_VARIANT_SECRET_FILE")) secret_file = env;
  }
  std::string secret;
  if (secret_file) {
    if (secret_file->empty()) {
      return fail("--variant-secret needs a file of " +
                  std::to_string(limits::kMinVariantSecretBytes) +
                  " or more secret bytes (e.g. head -c 32 /dev/urandom > FILE)");
    }
    Result<std::string> read = read_variant_secret(*secret_file);
    if (!read) return fail(read.error().message);
    secret = std::move(read.value());
  }
  auto loaded = ProblemSet::load(problems_dir);
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    for (const auto& d : *defects) std::cerr << d.to_string() << "\n";
    return fail("the problem folder " + problems_dir + " has defects");
  }
  const auto& set = std::get<ProblemSet>(loaded);
  PlatformOutcome outcome;
  const ProblemPool* pool = set.find_pool(problem_id);
  outcome.problem = set.find(problem_id);
  if (!outcome.problem && !pool) {
    return fail("no problem has the id \"" + problem_id + "\"; the problems are " + set.ids_text());
  }
  if (pool && secret.empty()) {
    return fail("\"" + problem_id +
                "\" is a pool: each student is given one of its problems, drawn from their "
                "identity with a secret; give --variant-secret FILE");
  }
  // The student's variant (API.md §15): only with a secret, and then only for a student named
  // by the platform (or --student). The student is never printed: it is not the grader's log.
  std::optional<Problem> variant;
  if (!secret.empty()) {
    if (!student) {
      Result<std::string> named =
          paths.student.read(paths.student.default_file, paths.student.flag);
      if (!named) return fail(named.error().message);
      student = std::move(named.value());
    }
    if (pool) {
      outcome.pool = pool->id;
      outcome.problem = set.find(pool->members[pool_member(secret, *pool, *student)]);
    }
    outcome.for_student = true;
    if (outcome.problem->variants.any()) {
      ProblemOrDefects relabeled =
          relabel_problem(*outcome.problem, derive_relabeling(secret, *outcome.problem, *student));
      if (auto* defects = std::get_if<std::vector<Defect>>(&relabeled)) {
        for (const auto& d : *defects) std::cerr << d.to_string() << "\n";
        return fail("the student's variant of \"" + outcome.problem->id + "\" has defects");
      }
      variant = std::get<Problem>(std::move(relabeled));
      outcome.problem = &*variant;
    }
  }
  const auto file = read_first_json(paths.submission_dir);
  if (!file) {
    outcome.not_gradable = file.error().message;
  } else if (auto submission = parse_submission(*outcome.problem, file->body); !submission) {
    outcome.not_gradable = file->name + ": " + submission.error().message;
  } else {
    outcome.weights = submission->weights;
    outcome.report =
        grade_with_diagnosis(*outcome.problem, submission->weights, limits::kPlatformMaxFailures);
  }
  std::error_code ec;
  std::filesystem::create_directories(paths.results_dir, ec);
  const auto path = paths.results_dir / "results.json";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << write(outcome, points).dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  out.close();
  if (!out) return fail("cannot write " + path.string());
  return 0;
}

}  // namespace headgrader::cli

#include "platform_command.h"

#include <cmath>
#include <fstream>
#include <iostream>

#include "headgrader/diagnosis.h"
#include "headgrader/limits.h"
#include "headgrader/problem.h"
#include "headgrader/submission.h"
#include "submission_folder.h"

namespace headgrader::cli {
int run_platform_command(const std::string& command, const std::vector<std::string>& args,
                         const PlatformPaths& defaults, bool with_points, PlatformWriter write) {
  std::string problem_id, problems_dir = default_problems_dir().string();
  PlatformPaths paths = defaults;
  double points = 1;
  const auto fail = [&](const std::string& what) {
    std::cerr << command << ": " << what << "\n";
    return 2;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    const bool known = flag == "--problem" || flag == "--problems" || flag == "--submission" ||
                       flag == "--results" || (with_points && flag == "--points");
    if (!known) return fail("unexpected argument \"" + flag + "\"");
    if (i + 1 == args.size()) return fail(flag + " needs a value");
    const std::string& value = args[++i];
    if (flag == "--problem") problem_id = value;
    if (flag == "--problems") problems_dir = value;
    if (flag == "--submission") paths.submission_dir = value;
    if (flag == "--results") paths.results_dir = value;
    if (flag == "--points") {
      char* end = nullptr;
      points = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != '\0' || !std::isfinite(points) || points <= 0) {
        return fail("--points must be a number greater than 0; it is \"" + value + "\"");
      }
    }
  }
  if (problem_id.empty()) return fail("needs --problem ID");
  auto loaded = ProblemSet::load(problems_dir);
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    for (const auto& d : *defects) std::cerr << d.to_string() << "\n";
    return fail("the problem folder " + problems_dir + " has defects");
  }
  const auto& set = std::get<ProblemSet>(loaded);
  PlatformOutcome outcome;
  outcome.problem = set.find(problem_id);
  if (!outcome.problem) {
    return fail("no problem has the id \"" + problem_id + "\"; the problems are " + set.ids_text());
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

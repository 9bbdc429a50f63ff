// headgrader/solve.h: loading a problem without its reference, the search over n_q, and the
// answer. Writing the head into the file is grader/solve_text.cc.
#include "headgrader/solve.h"

#include <algorithm>
#include <chrono>

#include "headgrader/diagnosis.h"
#include "headgrader/json_input.h"
#include "headgrader/report.h"
#include "problem_fields.h"
#include "solve_search.h"

namespace headgrader {
namespace {

// Reads the fields; the defects but those of `reference`, which a search does not need.
std::vector<Defect> read_fields(const Json& json, const std::string& file_name,
                                const std::string& base_name, ProblemSpec& spec) {
  DefectList defects(file_name);
  read_problem_fields(json, base_name, spec, defects);
  std::vector<Defect> kept;
  for (Defect& d : defects.take()) {
    if (d.field != "reference" && !d.field.starts_with("reference.")) kept.push_back(std::move(d));
  }
  return kept;
}

bool submits(const Problem& p, const char* name) {
  return std::find(p.submit.begin(), p.submit.end(), name) != p.submit.end();
}

}  // namespace

ProblemOrDefects load_draft_to_solve(std::string_view text) {
  std::string name = "problem.json";
  if (Result<Json> json = parse_json_checked(text, limits::kMaxJsonDepth, "the file");
      json && json->is_object()) {
    const auto id = json->find("id");
    if (id != json->end() && id->is_string()) name = id->get<std::string>() + ".json";
  }
  return load_problem_to_solve(text, name);
}

ProblemOrDefects load_problem_to_solve(std::string_view text, const std::string& file_name) {
  auto json = parse_json_checked(text, limits::kMaxJsonDepth, "the file");
  if (!json)
    return std::vector<Defect>{Defect{file_name, json.error().field, json.error().message}};
  if (!json->is_object()) {
    return std::vector<Defect>{Defect{file_name, "", "must hold one JSON object (a problem)"}};
  }
  const auto slash = file_name.find_last_of('/');
  const std::string base_name = file_name.substr(slash == std::string::npos ? 0 : slash + 1);
  Json fields = *json;
  fields.erase("reference");
  ProblemSpec first;
  if (auto defects = read_fields(fields, file_name, base_name, first); !defects.empty()) {
    return defects;
  }
  // A reference of zeros in the shapes the head needs, read with the rest so that the given
  // matrices' shapes are checked against it as at load.
  const auto n_q = first.given.count("W_q")   ? first.given.at("W_q").rows()
                   : first.given.count("W_k") ? first.given.at("W_k").rows()
                                              : Eigen::Index{1};
  const auto n_e = static_cast<Eigen::Index>(first.n_e);
  Json reference = Json::object();
  for (const std::string& name : first.submit) {
    const Eigen::Index rows = name == "W_V" ? static_cast<Eigen::Index>(first.n_v) : n_q;
    reference[name] = matrix_to_json(Matrix::Zero(rows, n_e));
  }
  fields["reference"] = std::move(reference);
  ProblemSpec spec;
  if (auto defects = read_fields(fields, file_name, base_name, spec); !defects.empty()) {
    return defects;
  }
  return Problem::derive_unproved(std::move(spec), file_name);
}

SolveResult solve_problem(const Problem& problem, const SolveOptions& options) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.seconds);
  SolveResult result;
  result.obstacles = find_obstacles(problem);
  std::vector<int> tried;
  if (!submits(problem, "W_q") || !submits(problem, "W_k")) {
    tried.push_back(static_cast<int>(problem.reference.W_q.rows()));  // fixed by the given one
  } else if (options.n_q > 0) {
    tried.push_back(options.n_q);
  } else {
    for (int n = 1; n <= limits::kSolveMaxDefaultNq; ++n) tried.push_back(n);
  }
  bool have = false;
  for (int n_q : tried) {
    SearchOutcome outcome = search_head(problem, n_q, deadline);
    if (!have || outcome.report.passed_count > result.report.passed_count) {
      result.head = std::move(outcome.best);
      result.report = std::move(outcome.report);
      have = true;
    }
    result.deadline_hit = outcome.deadline_hit;
    if (result.report.passed || outcome.deadline_hit) break;
  }
  result.found = result.report.passed;
  if (result.found) result.margin = margin_of(problem, result.head, result.report.worst_error);
  return result;
}

std::string solve_json(const Problem& problem, const SolveResult& result) {
  Json head = Json::object();
  for (const std::string& name : problem.submit)
    head[name] = matrix_to_json(result.head.by_name(name));
  Json out = Json::object();
  out["found"] = result.found;
  if (result.found) {
    out["head"] = std::move(head);
    out["margin"] = margin_to_json(*result.margin);
    return out.dump();
  }
  out["best"] = std::move(head);
  out["score"] = number_to_json(result.report.score);
  Json failing = Json::array();
  for (std::size_t k = 0; k < result.report.failures.size() &&
                          k < static_cast<std::size_t>(limits::kSolveMaxFailingListed);
       ++k) {
    failing.push_back(problem.spell(result.report.failures[k].input));
  }
  out["failing"] = std::move(failing);
  Json obstacles = Json::array();
  for (const Obstacle& o : result.obstacles) {
    obstacles.push_back({{"kind", o.kind},
                         {"input", problem.spell(o.input)},
                         {"position", o.position},
                         {"message", o.message}});
  }
  out["obstacles"] = std::move(obstacles);
  return out.dump();
}

}  // namespace headgrader

// The contract's JSON forms (API.md §5). Key order follows the contract; numbers go through
// number_to_json so that equal values always print the same way.
#include <cmath>

#include "headgrader/report.h"

namespace headgrader {
namespace {

Json strings_of(const std::vector<std::string>& items) {
  Json out = Json::array();
  for (const auto& s : items) out.push_back(s);
  return out;
}

Json trace_to_json(const AttentionTrace& t) {
  return Json{{"embeddings", matrix_to_json(t.embeddings)},
              {"Q", matrix_to_json(t.Q)},
              {"K", matrix_to_json(t.K)},
              {"V", matrix_to_json(t.V)},
              {"scores", matrix_to_json(t.scores)},
              {"masked_scores", matrix_to_json(t.masked_scores)},
              {"attention", matrix_to_json(t.attention)},
              {"output", matrix_to_json(t.output)}};
}

}  // namespace

Json number_to_json(double x) {
  if (!std::isfinite(x)) return nullptr;  // −∞ marks a masked score
  // Whole numbers print as integers ([1, 0], not [1.0, 0.0]) and −0 as 0.
  if (x == std::floor(x) && std::fabs(x) < 9007199254740992.0) {
    return static_cast<std::int64_t>(x);
  }
  return x;
}

Json matrix_to_json(const Matrix& m) {
  Json rows = Json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    Json row = Json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) row.push_back(number_to_json(m(i, j)));
    rows.push_back(std::move(row));
  }
  return rows;
}

Json report_to_json(const Problem& problem, const GradeReport& report) {
  Json examples = Json::array();
  for (const auto& e : report.examples) {
    examples.push_back(Json{{"input", problem.spell(e.input)},
                            {"passed", e.passed},
                            {"expected", matrix_to_json(e.expected)},
                            {"output", matrix_to_json(e.output)}});
  }
  Json failures = Json::array();
  for (const auto& f : report.failures) {
    failures.push_back(Json{{"input", problem.spell(f.input)},
                            {"failing_positions", f.failing_positions},
                            {"max_error", number_to_json(f.max_error)},
                            {"expected", matrix_to_json(f.expected)},
                            {"output", matrix_to_json(f.trace.output)},
                            {"trace", trace_to_json(f.trace)}});
  }
  return Json{{"problem", report.problem},
              {"passed", report.passed},
              {"score", report.score},
              {"tests", Json{{"total", report.total},
                             {"passed", report.passed_count},
                             {"failed", report.failed}}},
              {"examples", std::move(examples)},
              {"failures", std::move(failures)}};
}

Json problem_to_json(const Problem& p) {
  Json classes = Json::object();
  for (std::size_t c = 0; c < p.classes.names.size(); ++c) {
    classes[p.classes.names[c]] = p.class_texts[c];
  }
  Json given = Json::object();
  for (const auto& [name, m] : p.given) given[name] = matrix_to_json(m);
  Json out{{"id", p.id},
           {"title", p.title},
           {"statement", p.statement},
           {"alphabet", p.alphabet},
           {"classes", std::move(classes)},
           {"W_E", matrix_to_json(p.head.W_E)}};
  if (p.head.W_P) out["W_P"] = matrix_to_json(*p.head.W_P);
  out["submit"] = strings_of(p.submit);
  out["given"] = std::move(given);
  out["scale"] = number_to_json(p.head.scale);
  out["causal"] = p.head.causal;
  out["expected"] = p.expected_source;
  out["tolerance"] = number_to_json(p.tolerance);
  out["strings"] = Json{{"max_length", p.strings.max_length},
                        {"exhaustive_length", p.strings.exhaustive_length},
                        {"random", p.strings.random},
                        {"seed", p.strings.seed},
                        {"examples", strings_of(p.strings.examples)}};
  return out;
}

Json error_to_json(const Error& error) {
  return Json{{"error",
               {{"code", error.code},
                {"message", error.message},
                {"field", error.field.empty() ? Json(nullptr) : Json(error.field)}}}};
}

Json problem_summary_json(const Problem& p) {
  return Json{{"id", p.id}, {"title", p.title}, {"submit", strings_of(p.submit)}};
}

}  // namespace headgrader

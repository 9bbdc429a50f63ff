// The contract's JSON forms (API.md §5). Key order follows the contract; numbers go through
// number_to_json so that equal values always print the same way.
#include <cmath>

#include "headgrader/json_writer.h"
#include "headgrader/report.h"

namespace headgrader {
namespace {

Json strings_of(const std::vector<std::string>& items) {
  Json out = Json::array();
  for (const auto& s : items) out.push_back(s);
  return out;
}

void write_trace(JsonWriter& out, const AttentionTrace& t) {
  out.begin_object();
  out.key("embeddings").matrix(t.embeddings);
  out.key("Q").matrix(t.Q);
  out.key("K").matrix(t.K);
  out.key("V").matrix(t.V);
  out.key("scores").matrix(t.scores);
  out.key("masked_scores").matrix(t.masked_scores);
  out.key("attention").matrix(t.attention);
  out.key("output").matrix(t.output);
  out.end_object();
}

void write_margin(JsonWriter& out, const Margin& m) {
  out.begin_object();
  out.key("worst_error").number(m.worst_error);
  out.key("tolerance").number(m.tolerance);
  out.key("slack").number(m.slack);
  if (m.score_gap) out.key("score_gap").number(*m.score_gap);
  out.end_object();
}

}  // namespace

Json number_to_json(double x) {
  if (!std::isfinite(x)) return nullptr;  // −∞ marks a masked score
  if (prints_as_integer(x)) return static_cast<std::int64_t>(x);
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

std::string report_json(const Problem& problem, const GradeReport& report) {
  JsonWriter out(2048);  // a passing grade of a bundled problem is under 1 KiB
  out.begin_object();
  out.key("problem").value(report.problem);
  // The student's variant (API.md §15): the examples, failures and traces are in its
  // coordinates.
  if (!problem.variant.empty()) out.key("variant").value(problem.variant);
  out.key("passed").value(report.passed);
  out.key("score").value(report.score);
  out.key("tests").begin_object();
  out.key("total").value(report.total);
  out.key("passed").value(report.passed_count);
  out.key("failed").value(report.failed);
  out.end_object();
  out.key("examples").begin_array();
  for (const auto& e : report.examples) {
    out.begin_object();
    out.key("input").value(problem.spell(e.input));
    out.key("passed").value(e.passed);
    out.key("expected").matrix(e.expected);
    out.key("output").matrix(e.output);
    out.end_object();
  }
  out.end_array();
  out.key("failures").begin_array();
  for (const auto& f : report.failures) {
    out.begin_object();
    out.key("input").value(problem.spell(f.input));
    out.key("failing_positions").begin_array();
    for (const int position : f.failing_positions) out.value(position);
    out.end_array();
    out.key("max_error").number(f.max_error);
    out.key("expected").matrix(f.expected);
    out.key("output").matrix(f.trace.output);
    out.key("trace");
    write_trace(out, f.trace);
    out.end_object();
  }
  out.end_array();
  // API.md §13, after `failures` in that order: `diagnosis` always, `diagnosis_not_tried`
  // only when the budget left mistakes untried, `margin` only when passed.
  out.key("diagnosis").begin_array();
  for (const auto& d : report.diagnosis) {
    out.begin_object();
    out.key("mistake").value(d.mistake);
    out.key("message").value(d.message);
    out.key("hint").value(d.hint);
    out.end_object();
  }
  out.end_array();
  if (!report.diagnosis_not_tried.empty()) {
    out.key("diagnosis_not_tried").begin_array();
    for (const auto& name : report.diagnosis_not_tried) out.value(name);
    out.end_array();
  }
  if (report.margin) write_margin(out.key("margin"), *report.margin);
  out.end_object();
  return out.take();
}

Json margin_to_json(const Margin& margin) {
  JsonWriter out(128);
  write_margin(out, margin);
  return Json::parse(out.take());
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
           {"statement", p.shown_statement()},
           {"alphabet", p.alphabet},
           {"classes", std::move(classes)},
           {"W_E", matrix_to_json(p.head.W_E)}};
  if (!p.feature_names.empty()) out["feature_names"] = strings_of(p.feature_names);
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
  if (!p.variant.empty()) out["variant"] = p.variant;
  return out;
}

Json error_to_json(const Error& error) {
  return Json{{"error",
               {{"code", code_name(error.code)},
                {"message", error.message},
                {"field", error.has_field() ? Json(error.field) : Json(nullptr)}}}};
}

Json problem_summary_json(const Problem& p) {
  return Json{{"id", p.id}, {"title", p.title}, {"submit", strings_of(p.submit)}};
}

}  // namespace headgrader

// The routes that change what is served (API.md §9: status, validate, PUT, DELETE of a
// problem; solve, for the staff's page of §16) and the staff's view of the grade passback outbox
// (§11). Part of Router (router.h); the router has already checked the path, the method and the
// staff key.
#include <charconv>
#include <variant>

#include "access_log.h"
#include "common/url_encoding.h"
#include "headgrader/diagnosis.h"
#include "headgrader/grading_cost.h"
#include "headgrader/limits.h"
#include "headgrader/problem_warnings.h"
#include "headgrader/report.h"
#include "headgrader/solve.h"
#include "headgrader/variant.h"
#include "lti_service.h"
#include "router.h"

namespace headgrader::server {
namespace {

Json defects_json(const std::vector<Defect>& defects) {
  Json list = Json::array();
  for (const Defect& defect : defects) {
    list.push_back({{"field", defect.field}, {"message", defect.message}});
    // An obstacle (API.md §14) also says its kind, input and position.
    if (!defect.kind.empty()) {
      list.back()["kind"] = defect.kind;
      list.back()["input"] = defect.input;
      list.back()["position"] = defect.position;
    }
  }
  return list;
}

// ?seconds=S of the solve route: 1..kSolveRouteMaxSeconds, kSolveRouteDefaultSeconds without.
Result<int> solve_seconds(std::string_view query) {
  const std::optional<FormFields> fields = parse_form(query);
  const std::string range = "a whole number from 1 to " +
                            std::to_string(limits::kSolveRouteMaxSeconds) +
                            " (a longer search: headgrader solve FILE --seconds S)";
  if (!fields) {
    return Error{ErrorCode::kBadRequest,
                 "the query string is not valid: each '%' must be followed by two hexadecimal "
                 "digits, and each parameter given once",
                 ""};
  }
  int seconds = limits::kSolveRouteDefaultSeconds;
  for (const auto& [name, value] : *fields) {
    if (name != "seconds") {
      return Error{ErrorCode::kBadRequest,
                   "unknown parameter \"" + name + "\"; the only one is seconds, " + range, name};
    }
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec != std::errc() || end != value.data() + value.size() || seconds < 1 ||
        seconds > limits::kSolveRouteMaxSeconds) {
      return Error{ErrorCode::kBadRequest, "seconds must be " + range + "; it is \"" + value + "\"",
                   "seconds"};
    }
  }
  return seconds;
}

}  // namespace

Routed Router::on_status(const RouteCall& call) const { return answer_status(call.request); }

// Loading the file proves its reference passes: a long grading for a problem graded string by
// string over many strings.
Routed Router::on_validate(const RouteCall&) const {
  return later([this](const Request& same) { return answer_validate(same); });
}

// A search runs for up to its budget: never on the threads that read and write.
Routed Router::on_solve(const RouteCall&) const {
  return later([this](const Request& same) { return answer_solve(same); });
}

Routed Router::on_put(const RouteCall& call) const {
  return later([this, id = call.id](const Request& same) { return answer_put(id, same); });
}

Routed Router::on_delete(const RouteCall& call) const {
  return answer_delete(call.id, call.request);
}

Routed Router::on_passback_list(const RouteCall& call) const {
  return answer_passback(false, call.id, call.request);
}

Routed Router::on_passback_retry(const RouteCall& call) const {
  return answer_passback(true, call.id, call.request);
}

Routed Router::answer_status(const Request& request) const {
  const std::shared_ptr<const CatalogSnapshot> snapshot = service_.problems->current();
  Json defects = Json::array();
  for (const Defect& defect : service_.problems->defects()) defects.push_back(defect.to_string());
  Json body{{"loaded_at", rfc3339_millis(snapshot->loaded_at())},
            {"problems", snapshot->problems().problems().size()},
            {"defects", std::move(defects)}};
  return {json_answer(request, http::status::ok, body.dump()), "", std::nullopt};
}

Routed Router::answer_validate(const Request& request) const {
  if (std::optional<Error> refused = unless_json_body(request)) {
    return {error_answer(request, *refused), "", std::nullopt};
  }
  // A pool (API.md §15), named after the id it holds, checked against the problems served.
  if (is_pool_text(request.body())) {
    auto pool = service_.problems->load_pool(request.body(), "");
    const auto* defects = std::get_if<std::vector<Defect>>(&pool);
    Json body =
        defects != nullptr
            ? Json{{"valid", false}, {"defects", defects_json(*defects)}}
            : Json{{"valid", true},
                   {"warnings", Json::array()},
                   {"pool", Json::parse(CatalogSnapshot::pool_json(std::get<ProblemPool>(pool)))}};
    return {json_answer(request, http::status::ok, body.dump()), "", std::nullopt};
  }
  ProblemOrDefects loaded = load_problem_text_unnamed(request.body());
  Json body;
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    body = Json{{"valid", false}, {"defects", defects_json(*defects)}};
    // A draft whose only defects are of its reference (none yet, or one that fails) can still
    // be previewed as a student would see it: the rest of the file is loaded as solve does.
    ProblemOrDefects unproved = load_draft_to_solve(request.body());
    if (const auto* problem = std::get_if<Problem>(&unproved)) {
      body["problem"] = problem_to_json(*problem);
    }
  } else {
    const Problem& problem = std::get<Problem>(loaded);
    std::vector<ProblemWarning> found = problem_warnings(problem);
    // The lint of `headgrader validate --lint` (API.md §13): each named mistake applied to the
    // reference, a warning for each that passes, and the reference's margin (an extension).
    // It grades the reference about ten times: a problem graded string by string past the
    // cost of a request is left to the command, and the answer says so.
    std::optional<Margin> margin;
    std::optional<Json> caught;  // API.md §14
    if (grading_cost(problem) <= limits::kLongGradingCost) {
      LintReport lint = lint_problem(problem);
      found.insert(found.end(), lint.warnings.begin(), lint.warnings.end());
      margin = lint.reference_margin;
      caught = mistakes_caught_to_json(lint.mistakes_caught);
    } else {
      found.push_back({"strings",
                       "the named mistakes were not applied to the reference: this problem is "
                       "graded string by string over too many strings for one request; run "
                       "headgrader validate --lint on the file"});
    }
    Json warnings = Json::array();
    for (const auto& warning : found) {
      warnings.push_back({{"field", warning.field}, {"message", warning.message}});
    }
    body = Json{{"valid", true},
                {"tested_strings", problem.tested_total()},
                {"warnings", std::move(warnings)},
                {"problem", problem_to_json(problem)}};
    // ?student=S, the staff page's preview of a student's variant (API.md §15, §16): the
    // draft as S will see it once saved, drawn with this server's secret and proved.
    const std::optional<FormFields> query = parse_form(request_query(request.target()));
    const auto student = query ? query->find("student") : FormFields::const_iterator();
    if (query && student != query->end() && !student->second.empty()) {
      const Relabeling relabeling =
          derive_relabeling(service_.variant_secret, problem, student->second);
      if (!relabeling.is_identity()) {
        ProblemOrDefects variant = relabel_problem(problem, relabeling);
        if (const auto* relabeled = std::get_if<Problem>(&variant)) {
          body["problem"] = problem_to_json(*relabeled);
        } else {
          body["variant_defects"] = defects_json(std::get<std::vector<Defect>>(variant));
        }
      }
    }
    if (caught) body["mistakes_caught"] = std::move(*caught);
    if (margin) body["reference_margin"] = margin_to_json(*margin);
  }
  return {json_answer(request, http::status::ok,
                      body.dump(-1, ' ', false, Json::error_handler_t::replace)),
          "", std::nullopt};
}

// `headgrader solve` (API.md §14) on a draft sent by the staff's page: the command's answer,
// and when a head is found also "file", the draft with that head as its reference (every
// other byte as sent), ready to be saved. The draft is written nowhere.
Routed Router::answer_solve(const Request& request) const {
  if (std::optional<Error> refused = unless_json_body(request)) {
    return {error_answer(request, *refused), "", std::nullopt};
  }
  Result<int> seconds = solve_seconds(request_query(request.target()));
  if (!seconds) return {error_answer(request, seconds.error()), "", std::nullopt};
  ProblemOrDefects loaded = load_draft_to_solve(request.body());
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    return {error_answer(request,
                         {ErrorCode::kInvalidProblem,
                          "the problem file has defects besides its reference; fix them, then "
                          "solve it",
                          ""},
                         Json{{"defects", defects_json(*defects)}}),
            "", std::nullopt};
  }
  const Problem& problem = std::get<Problem>(loaded);
  const SolveResult result = solve_problem(problem, SolveOptions{.n_q = 0, .seconds = *seconds});
  Json body = Json::parse(solve_json(problem, result));
  if (result.found) {
    if (std::optional<std::string> file =
            text_with_reference(request.body(), problem, result.head)) {
      body["file"] = std::move(*file);
    }
  }
  return {json_answer(request, http::status::ok,
                      body.dump(-1, ' ', false, Json::error_handler_t::replace)),
          "", std::nullopt};
}

Routed Router::answer_put(std::string_view id, const Request& request) const {
  const std::string problem_id(id);
  if (std::optional<Error> refused = unless_json_body(request)) {
    return {error_answer(request, *refused), problem_id, std::nullopt};
  }
  Result<PutOutcome> put = service_.problems->put(id, request.body());
  if (!put) return {error_answer(request, put.error()), problem_id, std::nullopt};
  if (!put->defects.empty()) {
    return {error_answer(request,
                         {ErrorCode::kInvalidProblem,
                          "the problem file is not valid; nothing was written. Fix each defect "
                          "and send it again",
                          ""},
                         Json{{"defects", defects_json(put->defects)}}),
            problem_id, std::nullopt};
  }
  const std::shared_ptr<const CatalogSnapshot> snapshot = service_.problems->current();
  const CatalogSnapshot::Entry* entry = snapshot->find(id);
  const ProblemPool* pool = snapshot->find_pool(id);
  return {json_answer(request, put->created ? http::status::created : http::status::ok,
                      entry != nullptr  ? entry->json
                      : pool != nullptr ? CatalogSnapshot::pool_json(*pool)
                                        : std::string("{}")),
          problem_id, std::nullopt};
}

Routed Router::answer_delete(std::string_view id, const Request& request) const {
  const std::string problem_id(id);
  Result<bool> removed = service_.problems->remove(id);
  if (!removed) return {error_answer(request, removed.error()), problem_id, std::nullopt};
  if (!removed.value()) {
    return {error_answer(request, {ErrorCode::kNotFound, "there is no problem with this id", ""}),
            problem_id, std::nullopt};
  }
  Response response{http::status::no_content, request.version()};
  response.keep_alive(request.keep_alive());
  return {std::move(response), problem_id, std::nullopt};
}

// The staff's view of the scores sent to LMSs (API.md §11).
Routed Router::answer_passback(bool retry, const std::string& id, const Request& request) const {
  if (service_.lti == nullptr) {
    return {error_answer(request, {ErrorCode::kNotFound,
                                   "this server sends no scores to an LMS: it was started "
                                   "without --lti",
                                   ""}),
            "", std::nullopt};
  }
  if (retry) {
    Result<bool> requeued = service_.lti->passback_retry(id);
    if (!requeued) return {error_answer(request, requeued.error()), "", std::nullopt};
    if (!*requeued) {
      return {error_answer(request, {ErrorCode::kNotFound,
                                     "there is no failed score with this id; "
                                     "GET /v1/passback?status=failed lists them",
                                     ""}),
              "", std::nullopt};
    }
    Json body = Json::object();
    body["id"] = id;
    body["status"] = "pending";
    return {json_answer(request, http::status::accepted, body.dump()), "", std::nullopt};
  }
  // ?status=pending|sent|failed; none (or empty) lists every status.
  const std::optional<FormFields> query = parse_form(request_query(request.target()));
  if (!query) {
    return {error_answer(request, {ErrorCode::kBadRequest,
                                   "the query string is not valid: each '%' must be followed by "
                                   "two hexadecimal digits, and each parameter given once",
                                   ""}),
            "", std::nullopt};
  }
  const auto given = query->find("status");
  const std::string status = given == query->end() ? std::string() : given->second;
  Result<std::string> list = service_.lti->passback_list(status);
  if (!list) return {error_answer(request, list.error()), "", std::nullopt};
  return {json_answer(request, http::status::ok, std::move(*list)), "", std::nullopt};
}

}  // namespace headgrader::server

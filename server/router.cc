#include "router.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "answer_guard.h"
#include "headgrader/check_steps.h"
#include "headgrader/limits.h"
#include "headgrader/problem.h"
#include "lti_service.h"
#include "openapi_document.h"
#include "route_table.h"
#include "staff_routes.h"
#include "static_files.h"

namespace headgrader::server {
namespace {

Response method_not_allowed(const Request& request, Route route, bool staff) {
  Response response =
      error_answer(request, {ErrorCode::kMethodNotAllowed,
                             std::string(request.method_string()) + " is not allowed here; use " +
                                 methods_to_use(route, staff),
                             ""});
  response.set(http::field::allow, allowed_methods(route, staff));
  return response;
}

// A refusal by auth.h: 401 carries WWW-Authenticate.
Response denied(const Request& request, const Error& error) {
  if (error.code == ErrorCode::kUnauthorized) {
    return unauthorized_response(error, request.version(), request.keep_alive());
  }
  return error_answer(request, error);
}

// The staff routes of the submission record (API.md §8), once the caller may use them.
Routed answer_record_route(Route route, const std::string& id, const CatalogSnapshot::Entry* entry,
                           const Principal& who, const Request& request,
                           const RecordSettings& records) {
  const std::string problem = entry != nullptr ? entry->problem->id : "";
  const unsigned version = request.version();
  const bool keep_alive = request.keep_alive();
  if (records.store == nullptr) {
    return {error_response({ErrorCode::kStoreUnavailable,
                            "this server keeps no record of gradings (--store none)", ""},
                           version, keep_alive),
            problem, std::nullopt};
  }
  store::SubmissionStore& store = *records.store;
  const std::string_view query = request_query(request.target());
  switch (route) {
    case Route::kSubmissions:
      return {list_submissions(store, query, false, version, keep_alive), "", std::nullopt};
    case Route::kSubmissionsCsv: {
      Routed routed;
      routed.response = list_submissions(store, query, true, version, keep_alive, &routed.stream);
      return routed;
    }
    case Route::kSubmission:
      return {get_submission(store, id, version, keep_alive), "", std::nullopt};
    case Route::kStats:
      return {problem_stats(store, problem, version, keep_alive), problem, std::nullopt};
    default:
      return {regrade(*entry->problem, entry->sha256, records, who.key_name, version, keep_alive),
              problem, std::nullopt};
  }
}

std::string_view trim(std::string_view text) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

// A route whose work may take seconds: a regrade grades every student's latest submission,
// and loading a problem file (validate, PUT) proves that its reference passes, a long grading
// for a problem graded string by string over many strings. Left to the caller (Routed::rest),
// which runs it off the io threads.
Routed later(std::function<Routed(const Request&)> work) {
  Routed routed;
  routed.rest = [work = std::move(work)](const Request& same) {
    return guarded(same, [&] { return work(same); });
  };
  return routed;
}

}  // namespace

Response headers_only(Response response) {
  const std::size_t length = response.body().size();
  response.body().clear();
  response.content_length(length);
  return response;
}

bool is_json_content_type(std::string_view value) {
  const std::string_view media_type = trim(value.substr(0, value.find(';')));
  constexpr std::string_view kJson = "application/json";
  return std::equal(
      media_type.begin(), media_type.end(), kJson.begin(), kJson.end(),
      [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

std::optional<Error> unless_json_body(const Request& request) {
  const auto content_type = request.find(http::field::content_type);
  if (content_type != request.end() && is_json_content_type(content_type->value())) {
    return std::nullopt;
  }
  std::string message = "the body must be JSON, sent with Content-Type: application/json; ";
  if (content_type == request.end()) {
    message += "the request has no Content-Type";
  } else {
    constexpr std::size_t kShownBytes = 100;
    const std::string_view value = content_type->value();
    message += "the request's Content-Type is \"";
    for (const char c : value.substr(0, kShownBytes)) message += c >= ' ' && c <= '~' ? c : '?';
    message += value.size() > kShownBytes ? "…\"" : "\"";
  }
  return Error{ErrorCode::kUnsupportedMediaType, message, ""};
}

Router::Router(const ProblemSet& problems)
    : owned_catalog_(std::make_unique<ProblemCatalog>(problems)),
      owned_service_{owned_catalog_.get()},
      service_(owned_service_) {}

Router::Router(const Service& service) : service_(service) {}

Routed Router::route(const Request& request) const {
  Routed routed = route_deferring(request);
  if (routed.rest) routed = routed.rest(request);
  if (!routed.stream) return routed;
  std::string body;
  for (;;) {
    Result<std::optional<std::string>> piece = routed.stream->next();
    if (!piece) {
      return {error_response(piece.error(), request.version(), request.keep_alive()), "",
              std::nullopt};
    }
    if (!*piece) break;
    body += **piece;
  }
  routed.stream = nullptr;
  routed.response.body() = std::move(body);
  routed.response.prepare_payload();
  if (request.method() == http::verb::head) {
    routed.response = headers_only(std::move(routed.response));
  }
  return routed;
}

Routed Router::route_deferring(const Request& request) const {
  Routed routed = guarded(request, [&] { return route_unguarded(request); });
  if (request.method() == http::verb::head) {
    routed.response = headers_only(std::move(routed.response));
  }
  return routed;
}

// The checks run in this order: path, problem id, method, credentials, then content type and
// body. An unknown problem is 404 whatever the method (but PUT, which may create it): its
// paths name nothing that exists.
Routed Router::route_unguarded(const Request& request) const {
  if (service_.lti != nullptr) {
    // No io thread ever waits on a platform: a launch that must fetch a keyset runs on the
    // long-work threads.
    if (service_.lti->waits_on_platform(request)) {
      return later([lti = service_.lti](const Request& same) -> Routed {
        return {lti->launch_fetching(same), "", std::nullopt};
      });
    }
    if (std::optional<Response> answer = service_.lti->route(request)) {
      return {std::move(*answer), "", std::nullopt};
    }
  }
  const Match match = match_path(request_path(request.target()));
  if (match.route == Route::kBadEncoding) {
    return {error_answer(request, {ErrorCode::kBadRequest,
                                   "the path is not a valid URL path: each '%' must be followed "
                                   "by two hexadecimal digits",
                                   ""}),
            "", std::nullopt};
  }
  if (match.route == Route::kNone) {
    return {error_answer(request, {ErrorCode::kNotFound,
                                   std::string("there is no such path; the service answers ") +
                                       std::string(kRouteList),
                                   ""}),
            "", std::nullopt};
  }

  const WebAsset* asset = match.route == Route::kPage ? find_web_asset(match.id) : nullptr;
  if (match.route == Route::kPage && asset == nullptr) {
    return {error_answer(request, {ErrorCode::kNotFound,
                                   "there is no such file of the student page; the page is at / "
                                   "and its files under /static/",
                                   ""}),
            "", std::nullopt};
  }

  // One snapshot for the whole request: a reload meanwhile does not change what it sees.
  const std::shared_ptr<const CatalogSnapshot> snapshot = service_.problems->current();
  const CatalogSnapshot::Entry* entry = nullptr;
  const bool staff_enabled = service_.keys != nullptr;
  const bool creates =
      staff_enabled && match.route == Route::kProblem && request.method() == http::verb::put;
  const bool names_problem = match.route == Route::kProblem || match.route == Route::kGrade ||
                             match.route == Route::kCheckSteps || match.route == Route::kStats ||
                             match.route == Route::kRegrade;
  // A path's id is a problem id or names nothing, for every method: "..%2Fkeys" or
  // "%2Ftmp%2Fx" is never looked up, read or joined to the folder (PUT included).
  if (names_problem && !is_problem_id(match.id)) {
    return {error_answer(request, {ErrorCode::kNotFound,
                                   "there is no problem with this id: an id is 1 to " +
                                       std::to_string(limits::kMaxProblemIdBytes) +
                                       " lowercase letters, digits and \"-\"; the problems are " +
                                       snapshot->ids_text(),
                                   ""}),
            "", std::nullopt};
  }
  if (names_problem && !creates) {
    entry = snapshot->find(match.id);
    if (entry == nullptr) {
      return {error_answer(request, {ErrorCode::kNotFound,
                                     "there is no problem with this id; the problems are " +
                                         snapshot->ids_text(),
                                     ""}),
              "", std::nullopt};
    }
  }
  const std::string problem_id = entry != nullptr ? entry->problem->id : std::string();

  if (!is_allowed(match.route, request.method(), staff_enabled)) {
    return {method_not_allowed(request, match.route, staff_enabled), problem_id, std::nullopt};
  }

  const bool passback_route =
      match.route == Route::kPassback || match.route == Route::kPassbackRetry;
  const bool staff_route =
      is_record_route(match.route) || passback_route || match.route == Route::kProblemsStatus ||
      match.route == Route::kValidate ||
      (match.route == Route::kProblem &&
       (request.method() == http::verb::put || request.method() == http::verb::delete_));
  // Checking steps is granted as grading is (the page sends the same credentials to both).
  const bool needs_credentials =
      staff_route || match.route == Route::kGrade || match.route == Route::kCheckSteps;
  // Without --keys no credential can open a staff route: 403 staff_disabled whatever is sent
  // (API.md §7), so a staff member who forgot --keys is not told their key is wrong.
  if (staff_route && !staff_enabled) {
    return {denied(request, *may_use_staff_route(Principal{}, false)), problem_id, std::nullopt};
  }
  Principal who;
  if (needs_credentials) {
    const std::shared_ptr<const KeyRing> keys =
        service_.keys != nullptr ? service_.keys->current() : nullptr;
    Result<Principal> found = authenticate(request, keys.get(), service_.student_tokens);
    if (!found) return {denied(request, found.error()), problem_id, std::nullopt};
    who = std::move(found.value());
    const std::optional<Error> refused = staff_route ? may_use_staff_route(who, staff_enabled)
                                                     : may_grade(who, problem_id, service_.grading);
    if (refused) return {denied(request, *refused), problem_id, std::nullopt};
  }

  if (is_record_route(match.route) && service_.records.store != nullptr) {
    // Every record route reads the store, which on a large one takes seconds (an export of
    // every record, the stats over every student), and a regrade grades again the latest
    // submission of every student: off the io threads, so that /healthz and gradings never
    // wait behind them.
    return later(
        [this, snapshot, entry, who, route = match.route, id = match.id](const Request& same) {
          Routed routed = answer_record_route(route, id, entry, who, same, service_.records);
          if (same.method() == http::verb::head && !routed.stream) {
            routed.response = headers_only(std::move(routed.response));
          }
          return routed;
        });
  }
  if (is_record_route(match.route)) {
    return answer_record_route(match.route, match.id, entry, who, request, service_.records);
  }
  if (passback_route)
    return answer_passback(match.route == Route::kPassbackRetry, match.id, request);

  switch (match.route) {
    case Route::kHealth:
      return {json_answer(request, http::status::ok, R"({"status":"ok"})"), "", std::nullopt};
    case Route::kProblems:
      return {json_answer(request, http::status::ok, snapshot->list_json()), "", std::nullopt};
    case Route::kOpenApi:
      return {json_answer(request, http::status::ok, std::string(openapi_document())), "",
              std::nullopt};
    case Route::kProblemsStatus:
      return answer_status(request);
    case Route::kValidate:
      return later([this](const Request& same) { return answer_validate(same); });
    case Route::kPage:
      return {web_asset_response(*asset, request), "", std::nullopt};
    case Route::kCheckSteps:
      return answer_check_steps(*entry, request);
    case Route::kProblem:
      if (request.method() == http::verb::put) {
        return later([this, id = match.id](const Request& same) { return answer_put(id, same); });
      }
      if (request.method() == http::verb::delete_) return answer_delete(match.id, request);
      return {json_answer(request, http::status::ok, entry->json), problem_id, std::nullopt};
    default:
      return answer_grade(snapshot, *entry, who, request);
  }
}

Routed Router::answer_check_steps(const CatalogSnapshot::Entry& entry,
                                  const Request& request) const {
  const Problem& problem = *entry.problem;
  if (std::optional<Error> refused = unless_json_body(request)) {
    return {error_answer(request, *refused), problem.id, std::nullopt};
  }
  Result<StepsReport> report = check_steps(problem, request.body());
  if (!report) return {error_answer(request, report.error()), problem.id, std::nullopt};
  return {json_answer(request, http::status::ok, steps_report_json(*report)), problem.id,
          std::nullopt};
}

}  // namespace headgrader::server

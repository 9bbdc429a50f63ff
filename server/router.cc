#include "router.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <initializer_list>
#include <optional>
#include <utility>

#include "headgrader/grade.h"
#include "headgrader/limits.h"
#include "headgrader/problem_warnings.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "access_log.h"
#include "lti_service.h"
#include "openapi_document.h"

namespace headgrader::server {
namespace {

enum class Route {
  kNone,
  kBadEncoding,
  kProblems,
  kProblem,
  kGrade,
  kHealth,
  kProblemsStatus,
  kValidate,
  kOpenApi
};

struct Match {
  Route route = Route::kNone;
  std::string id;  // for kProblem and kGrade, percent-decoded
};

constexpr std::string_view kRouteList =
    "GET /v1/problems, GET /v1/problems/{id}, POST /v1/problems/{id}/grade and GET /healthz "
    "(described at GET /v1/openapi.json; and, with a staff key, GET /v1/problems/status, POST /v1/problems/validate, "
    "PUT and DELETE /v1/problems/{id})";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RFC 3986 §2.1: "%2D" is "-". Nullopt when a '%' is not followed by two hex digits.
std::optional<std::string> percent_decode(std::string_view segment) {
  std::string decoded;
  decoded.reserve(segment.size());
  for (std::size_t i = 0; i < segment.size(); ++i) {
    if (segment[i] != '%') {
      decoded += segment[i];
      continue;
    }
    if (i + 2 >= segment.size()) return std::nullopt;
    const int high = hex_value(segment[i + 1]);
    const int low = hex_value(segment[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    decoded += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return decoded;
}

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
           return a == std::tolower(static_cast<unsigned char>(b));
         });
}

// The path of a request target, without its query. RFC 9112 §3.2.2: a server must accept
// the absolute form ("http://host/healthz") too; its path is what follows the authority.
std::string_view request_path(std::string_view target) {
  for (const std::string_view scheme : {"http://", "https://"}) {
    if (!starts_with_ignoring_case(target, scheme)) continue;
    const std::size_t slash = target.find('/', scheme.size());
    const std::size_t query = target.find('?', scheme.size());
    if (slash == std::string_view::npos || query < slash) return "/";
    target.remove_prefix(slash);
    break;
  }
  return target.substr(0, target.find('?'));
}

// Which route a path names (the query, if any, already cut off). Each segment is decoded on
// its own, so an encoded '/' ("%2F") stays inside its segment, as RFC 3986 wants.
Match match_path(std::string_view path) {
  if (path.empty() || path.front() != '/') return {};
  std::vector<std::string> segments;
  for (std::string_view rest = path.substr(1);;) {
    const std::size_t slash = rest.find('/');
    std::optional<std::string> segment = percent_decode(rest.substr(0, slash));
    if (!segment) return {Route::kBadEncoding, {}};
    segments.push_back(std::move(*segment));
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  const auto is = [&](std::initializer_list<std::string_view> fixed) {
    return std::equal(fixed.begin(), fixed.end(), segments.begin(), segments.end(),
                      [](std::string_view a, const std::string& b) { return a.empty() || a == b; });
  };
  // An empty pattern segment stands for the id, which must not be empty.
  if (is({"healthz"})) return {Route::kHealth, {}};
  if (is({"v1", "openapi.json"})) return {Route::kOpenApi, {}};
  if (is({"v1", "problems"})) return {Route::kProblems, {}};
  // The §9 routes take these two names: no problem with either id can be fetched or replaced.
  if (is({"v1", "problems", "status"})) return {Route::kProblemsStatus, {}};
  if (is({"v1", "problems", "validate"})) return {Route::kValidate, {}};
  if (is({"v1", "problems", ""}) && !segments[2].empty()) return {Route::kProblem, segments[2]};
  if (is({"v1", "problems", "", "grade"}) && !segments[2].empty()) {
    return {Route::kGrade, segments[2]};
  }
  return {};
}

// The methods each route answers (HEAD wherever GET is), for the check and for Allow. PUT and
// DELETE of a problem exist only with --keys (`staff`): without, the server is Part 1's, where
// they are 405 (README, Problems that change).
std::string_view allowed_methods(Route route, bool staff) {
  switch (route) {
    case Route::kGrade:
    case Route::kValidate:
      return "POST";
    case Route::kProblem:
      return staff ? "GET, HEAD, PUT, DELETE" : "GET, HEAD";
    default:
      return "GET, HEAD";
  }
}

bool is_allowed(Route route, http::verb method, bool staff) {
  const bool get = method == http::verb::get || method == http::verb::head;
  switch (route) {
    case Route::kGrade:
    case Route::kValidate:
      return method == http::verb::post;
    case Route::kProblem:
      return get || (staff && (method == http::verb::put || method == http::verb::delete_));
    default:
      return get;
  }
}

Response json_answer(const Request& request, http::status status, std::string body) {
  return json_response(status, std::move(body), request.version(), request.keep_alive());
}

Response error_answer(const Request& request, Error error) {
  return error_response(error, request.version(), request.keep_alive());
}

Response method_not_allowed(const Request& request, Route route, bool staff) {
  const std::string_view allowed = allowed_methods(route, staff);
  const std::string_view use = route == Route::kProblem && staff
                                   ? "GET, PUT or DELETE"
                                   : allowed.substr(0, allowed.find(','));
  Response response = error_answer(
      request, {error_code::kMethodNotAllowed,
                std::string(request.method_string()) + " is not allowed here; use " +
                    std::string(use),
                ""});
  response.set(http::field::allow, allowed);
  return response;
}

// A refusal by auth.h: 401 carries WWW-Authenticate.
Response denied(const Request& request, const Error& error) {
  if (error.code == error_code::kUnauthorized) {
    return unauthorized_response(error, request.version(), request.keep_alive());
  }
  return error_answer(request, error);
}

std::string_view trim(std::string_view text) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
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

namespace {

// 415 unless the body is sent as JSON: what came, so that the sender sees its mistake (curl -d
// sends a form type); bytes that are not printable ASCII as '?', so the answer stays UTF-8.
std::optional<Error> not_json(const Request& request) {
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
  return Error{error_code::kUnsupportedMediaType, message, ""};
}

Json defects_json(const std::vector<Defect>& defects) {
  Json list = Json::array();
  for (const Defect& defect : defects) {
    list.push_back({{"field", defect.field}, {"message", defect.message}});
  }
  return list;
}

}  // namespace

Router::Router(const ProblemSet& problems)
    : owned_catalog_(std::make_unique<ProblemCatalog>(problems)),
      owned_service_{owned_catalog_.get()},
      service_(owned_service_) {}

Router::Router(const Service& service) : service_(service) {}

Routed Router::route(const Request& request) const {
  Routed routed = route_guarded(request);
  if (request.method() == http::verb::head) {
    routed.response = headers_only(std::move(routed.response));
  }
  return routed;
}

Routed Router::route_guarded(const Request& request) const {
  // The one place where anything thrown (an allocation failure, a bug) becomes an answer.
  try {
    return route_unguarded(request);
  } catch (const std::exception&) {
    return {
        error_answer(request, {error_code::kInternalError,
                               "the server failed to answer this request; please report it", ""}),
        "", std::nullopt};
  }
}

bool Router::grades_long(const Request& request) const {
  if (request.method() != http::verb::post) return false;
  try {
    const Match match = match_path(request_path(request.target()));
    if (match.route != Route::kGrade) return false;
    const std::shared_ptr<const CatalogSnapshot> snapshot = service_.problems->current();
    const CatalogSnapshot::Entry* entry = snapshot->find(match.id);
    if (entry == nullptr) return false;
    const Problem& problem = *entry->problem;
    return problem.count_states == nullptr && problem.tested_total() > limits::kLongGradingStrings;
  } catch (const std::exception&) {
    return false;  // out of memory: route() answers it
  }
}

// The checks run in this order: path, problem id, method, credentials, then content type and
// body. An unknown problem is 404 whatever the method (but PUT, which may create it): its
// paths name nothing that exists.
Routed Router::route_unguarded(const Request& request) const {
  if (service_.lti != nullptr) {
    if (std::optional<Response> answer = service_.lti->route(request)) {
      return {std::move(*answer), "", std::nullopt};
    }
  }
  const Match match = match_path(request_path(request.target()));
  if (match.route == Route::kBadEncoding) {
    return {error_answer(request, {error_code::kBadRequest,
                                   "the path is not a valid URL path: each '%' must be followed "
                                   "by two hexadecimal digits",
                                   ""}),
            "", std::nullopt};
  }
  if (match.route == Route::kNone) {
    return {error_answer(request, {error_code::kNotFound,
                                   std::string("there is no such path; the service answers ") +
                                       std::string(kRouteList),
                                   ""}),
            "", std::nullopt};
  }

  // One snapshot for the whole request: a reload meanwhile does not change what it sees.
  const std::shared_ptr<const CatalogSnapshot> snapshot = service_.problems->current();
  const CatalogSnapshot::Entry* entry = nullptr;
  const bool staff_enabled = service_.keys != nullptr;
  const bool creates =
      staff_enabled && match.route == Route::kProblem && request.method() == http::verb::put;
  if ((match.route == Route::kProblem || match.route == Route::kGrade) && !creates) {
    entry = snapshot->find(match.id);
    if (entry == nullptr) {
      return {error_answer(request, {error_code::kNotFound,
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

  const bool staff_route = match.route == Route::kProblemsStatus ||
                           match.route == Route::kValidate ||
                           (match.route == Route::kProblem &&
                            (request.method() == http::verb::put ||
                             request.method() == http::verb::delete_));
  const bool needs_credentials = staff_route || match.route == Route::kGrade;
  Principal who;
  if (needs_credentials) {
    const std::shared_ptr<const KeyRing> keys =
        service_.keys != nullptr ? service_.keys->current() : nullptr;
    Result<Principal> found = authenticate(request, keys.get(), service_.student_tokens);
    if (!found) return {denied(request, found.error()), problem_id, std::nullopt};
    who = std::move(found.value());
    const std::optional<Error> refused =
        staff_route ? may_use_staff_route(who, staff_enabled)
                    : may_grade(who, problem_id, service_.grading);
    if (refused) return {denied(request, *refused), problem_id, std::nullopt};
  }

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
      return answer_validate(request);
    case Route::kProblem:
      if (request.method() == http::verb::put) return answer_put(match.id, request);
      if (request.method() == http::verb::delete_) return answer_delete(match.id, request);
      return {json_answer(request, http::status::ok, entry->json), problem_id, std::nullopt};
    default:
      return answer_grade(*entry, who, request);
  }
}

Routed Router::answer_grade(const CatalogSnapshot::Entry& entry, const Principal& who,
                            const Request& request) const {
  const Problem& problem = *entry.problem;
  if (std::optional<Error> refused = not_json(request)) {
    return {error_answer(request, *refused), problem.id, std::nullopt};
  }
  Result<Submission> submission = parse_submission(problem, request.body());
  if (!submission) return {error_answer(request, submission.error()), problem.id, std::nullopt};

  const GradeReport report =
      headgrader::grade(problem, submission->weights, submission->max_failures);
  // A launched student's score goes to the LMS (API.md §11).
  if (who.kind == Principal::Kind::kStudent && service_.lti != nullptr) {
    service_.lti->graded(who.student, report.score, "", std::chrono::system_clock::now());
  }
  return {json_answer(request, http::status::ok, report_json(problem, report)), problem.id,
          report.passed};
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
  if (std::optional<Error> refused = not_json(request)) {
    return {error_answer(request, *refused), "", std::nullopt};
  }
  ProblemOrDefects loaded = load_problem_text_unnamed(request.body());
  Json body;
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    body = Json{{"valid", false}, {"defects", defects_json(*defects)}};
  } else {
    const Problem& problem = std::get<Problem>(loaded);
    Json warnings = Json::array();
    for (const auto& warning : problem_warnings(problem)) {
      warnings.push_back({{"field", warning.field}, {"message", warning.message}});
    }
    body = Json{{"valid", true},
                {"tested_strings", problem.tested_total()},
                {"warnings", std::move(warnings)}};
  }
  return {json_answer(request, http::status::ok, body.dump(-1, ' ', false, Json::error_handler_t::replace)),
          "", std::nullopt};
}

Routed Router::answer_put(std::string_view id, const Request& request) const {
  const std::string problem_id(id);
  if (std::optional<Error> refused = not_json(request)) {
    return {error_answer(request, *refused), problem_id, std::nullopt};
  }
  Result<PutOutcome> put = service_.problems->put(id, request.body());
  if (!put) return {error_answer(request, put.error()), problem_id, std::nullopt};
  if (!put->defects.empty()) {
    Json body = error_to_json({error_code::kInvalidProblem,
                               "the problem file is not valid; nothing was written. Fix each "
                               "defect and send it again",
                               ""});
    body["defects"] = defects_json(put->defects);
    return {json_answer(request, http::status::unprocessable_entity,
                        body.dump(-1, ' ', false, Json::error_handler_t::replace)),
            problem_id, std::nullopt};
  }
  const std::shared_ptr<const CatalogSnapshot> snapshot = service_.problems->current();
  const CatalogSnapshot::Entry* entry = snapshot->find(id);
  return {json_answer(request, put->created ? http::status::created : http::status::ok,
                      entry != nullptr ? entry->json : std::string("{}")),
          problem_id, std::nullopt};
}

Routed Router::answer_delete(std::string_view id, const Request& request) const {
  const std::string problem_id(id);
  Result<bool> removed = service_.problems->remove(id);
  if (!removed) return {error_answer(request, removed.error()), problem_id, std::nullopt};
  if (!removed.value()) {
    return {error_answer(request, {error_code::kNotFound, "there is no problem with this id", ""}),
            problem_id, std::nullopt};
  }
  Response response{http::status::no_content, request.version()};
  response.keep_alive(request.keep_alive());
  return {std::move(response), problem_id, std::nullopt};
}

}  // namespace headgrader::server

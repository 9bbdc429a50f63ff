#include "router.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "answer_guard.h"
#include "headgrader/limits.h"
#include "headgrader/problem.h"
#include "headgrader/submission.h"
#include "openapi_document.h"
#include "route_table.h"
#include "static_files.h"

namespace headgrader::server {
namespace {

Response method_not_allowed(const Request& request, const RouteRow& row, bool staff) {
  Response response =
      error_answer(request, {ErrorCode::kMethodNotAllowed,
                             std::string(request.method_string()) + " is not allowed here; use " +
                                 methods_to_use(row, staff),
                             ""});
  response.set(http::field::allow, allowed_methods(row, staff));
  return response;
}

// A refusal by auth.h: 401 carries WWW-Authenticate.
Response denied(const Request& request, const Error& error) {
  if (error.code == ErrorCode::kUnauthorized) {
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

Router::Router(const Service& service, RouterScope scope)
    : service_(service),
      scope_(scope),
      own_metrics_(service.metrics == nullptr ? std::make_unique<Metrics>(route_patterns())
                                              : nullptr),
      metrics_(service.metrics != nullptr ? service.metrics : own_metrics_.get()) {}

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
  const RouteRow* row = nullptr;
  Routed routed = guarded(request, [&] { return route_unguarded(request, row); });
  routed.row = row;
  if (request.method() == http::verb::head) {
    routed.response = headers_only(std::move(routed.response));
  }
  return routed;
}

// The checks run in this order: path, what it names (a problem, a file of the page), method,
// credentials, then content type and body (the handler's). An unknown problem is 404 whatever
// the method (but a PUT that creates it): its paths name nothing that exists.
Routed Router::route_unguarded(const Request& request, const RouteRow*& matched) const {
  const std::string_view path = request_path(request.target());
  Match match = match_path(path, service_.lti != nullptr);
  if (scope_ == RouterScope::kMetricsOnly && match.row != nullptr &&
      match.row->pattern != "/metrics") {
    match = {};
  }
  if (match.bad_encoding) {
    return {error_answer(request, {ErrorCode::kBadRequest,
                                   "the path is not a valid URL path: each '%' must be followed "
                                   "by two hexadecimal digits",
                                   ""}),
            "", std::nullopt};
  }
  if (match.row == nullptr) {
    return {error_answer(request, {ErrorCode::kNotFound,
                                   scope_ == RouterScope::kMetricsOnly
                                       ? std::string("there is no such path; this listener "
                                                     "answers only GET /metrics")
                                       : "there is no such path; the service answers " +
                                             route_list(service_.lti != nullptr),
                                   ""}),
            "", std::nullopt};
  }
  matched = match.row;
  const RouteRow& row = *match.row;
  const bool staff_enabled = service_.keys != nullptr;
  const RouteMethod* method = find_method(row, request.method(), staff_enabled);
  RouteCall call{request, row,     match.id,   service_.problems->current(),
                 nullptr, nullptr, Principal{}};

  if (row.names == RouteRow::Names::kPageFile) {
    call.id = std::string(path);
    if (find_web_asset(call.id) == nullptr) {
      return {error_answer(request, {ErrorCode::kNotFound,
                                     "there is no such file of the student page; the page is at "
                                     "/ and its files under /static/",
                                     ""}),
              "", std::nullopt};
    }
  }
  if (row.names == RouteRow::Names::kProblem) {
    // A path's id is a problem id or names nothing, for every method: "..%2Fkeys" or
    // "%2Ftmp%2Fx" is never looked up, read or joined to the folder (PUT included).
    if (!is_problem_id(call.id)) {
      return {error_answer(request, {ErrorCode::kNotFound,
                                     "there is no problem with this id: an id is 1 to " +
                                         std::to_string(limits::kMaxProblemIdBytes) +
                                         " lowercase letters, digits and \"-\"; the problems are " +
                                         call.snapshot->ids_text(),
                                     ""}),
              "", std::nullopt};
    }
    if (method == nullptr || !method->creates_problem) {
      call.entry = call.snapshot->find(call.id);
      if (call.entry == nullptr) call.pool = call.snapshot->find_pool(call.id);
      if (call.entry == nullptr && call.pool == nullptr) {
        return {error_answer(request, {ErrorCode::kNotFound,
                                       "there is no problem with this id; the problems are " +
                                           call.snapshot->ids_text(),
                                       ""}),
                "", std::nullopt};
      }
    }
  }
  const std::string problem_id = call.entry != nullptr  ? call.entry->problem->id
                                 : call.pool != nullptr ? call.pool->id
                                                        : std::string();

  if (method == nullptr) {
    return {method_not_allowed(request, row, staff_enabled), problem_id, std::nullopt};
  }
  // The metrics listener's one route is keyless: it is bound where only the scraper reaches.
  if (scope_ == RouterScope::kMetricsOnly) return (this->*method->handler)(call);
  // Without --keys no credential can open a staff route: 403 staff_disabled whatever is sent
  // (API.md §7), so a staff member who forgot --keys is not told their key is wrong.
  if (method->access == Access::kStaff && !staff_enabled) {
    return {denied(request, *may_use_staff_route(Principal{}, false)), problem_id, std::nullopt};
  }
  if (method->access != Access::kAnyone) {
    const std::shared_ptr<const KeyRing> keys =
        service_.keys != nullptr ? service_.keys->current() : nullptr;
    Result<Principal> found = authenticate(request, keys.get(), service_.student_tokens);
    if (!found) return {denied(request, found.error()), problem_id, std::nullopt};
    call.who = std::move(found.value());
    const std::optional<Error> refused = method->access == Access::kStaff
                                             ? may_use_staff_route(call.who, staff_enabled)
                                             : may_grade(call.who, problem_id, service_.grading);
    if (refused) return {denied(request, *refused), problem_id, std::nullopt};
  }
  return (this->*method->handler)(call);
}

Routed Router::on_health(const RouteCall& call) const {
  return {json_answer(call.request, http::status::ok, R"({"status":"ok"})"), "", std::nullopt};
}

Routed Router::on_openapi(const RouteCall& call) const {
  return {json_answer(call.request, http::status::ok, std::string(openapi_document())), "",
          std::nullopt};
}

Routed Router::on_page(const RouteCall& call) const {
  return {web_asset_response(*find_web_asset(call.id), call.request), "", std::nullopt};
}

Routed Router::on_problems(const RouteCall& call) const {
  return {json_answer(call.request, http::status::ok, call.snapshot->list_json()), "",
          std::nullopt};
}

Routed Router::on_grade(const RouteCall& call) const {
  if (call.pool == nullptr) return answer_grade(call.snapshot, *call.entry, call.who, call.request);
  // A pool (API.md §15): graded on the member given to the student, recorded as the pool's.
  if (std::optional<Error> refused = unless_json_body(call.request)) {
    return {error_answer(call.request, *refused), call.id, std::nullopt};
  }
  Result<const CatalogSnapshot::Entry*> member =
      given_problem(call, viewer(call.who, submission_student(call.request.body())));
  if (!member) return {error_answer(call.request, member.error()), call.id, std::nullopt};
  return answer_grade(call.snapshot, **member, call.who, call.request, call.pool);
}

}  // namespace headgrader::server

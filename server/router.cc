#include "router.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <utility>

#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"

namespace headgrader::server {
namespace {

enum class Route { kNone, kProblems, kProblem, kGrade, kHealth };

struct Match {
  Route route = Route::kNone;
  std::string_view id;  // for kProblem and kGrade
};

constexpr std::string_view kProblemsPath = "/v1/problems";
constexpr std::string_view kGradeSuffix = "/grade";
constexpr std::string_view kRouteList =
    "GET /v1/problems, GET /v1/problems/{id}, POST /v1/problems/{id}/grade and GET /healthz";

// Which route a path names (the query, if any, already cut off). Ids never hold '/'.
Match match_path(std::string_view path) {
  if (path == "/healthz") return {Route::kHealth, {}};
  if (path == kProblemsPath) return {Route::kProblems, {}};
  if (!path.starts_with(kProblemsPath) || path.size() < kProblemsPath.size() + 2 ||
      path[kProblemsPath.size()] != '/') {
    return {};
  }
  std::string_view rest = path.substr(kProblemsPath.size() + 1);
  if (rest.ends_with(kGradeSuffix)) {
    std::string_view id = rest.substr(0, rest.size() - kGradeSuffix.size());
    if (!id.empty() && id.find('/') == std::string_view::npos) return {Route::kGrade, id};
  }
  if (rest.find('/') == std::string_view::npos) return {Route::kProblem, rest};
  return {};
}

bool is_get_route(Route route) { return route != Route::kGrade; }

Response json_answer(const Request& request, http::status status, std::string body) {
  return json_response(status, std::move(body), request.version(), request.keep_alive());
}

Response error_answer(const Request& request, Error error) {
  return error_response(error, request.version(), request.keep_alive());
}

Response method_not_allowed(const Request& request, Route route) {
  const bool get = is_get_route(route);
  Response response = error_answer(
      request,
      {error_code::kMethodNotAllowed,
       std::string(request.method_string()) + " is not allowed here; use " + (get ? "GET" : "POST"),
       ""});
  response.set(http::field::allow, get ? "GET, HEAD" : "POST");
  return response;
}

// HEAD gets GET's headers, Content-Length included, and no body.
Response answer_get(const Request& request, std::string body) {
  Response response = json_answer(request, http::status::ok, std::move(body));
  if (request.method() == http::verb::head) {
    const std::size_t length = response.body().size();
    response.body().clear();
    response.content_length(length);
  }
  return response;
}

std::string_view trim(std::string_view text) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

}  // namespace

bool is_json_content_type(std::string_view value) {
  const std::string_view media_type = trim(value.substr(0, value.find(';')));
  constexpr std::string_view kJson = "application/json";
  return std::equal(
      media_type.begin(), media_type.end(), kJson.begin(), kJson.end(),
      [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

Router::Router(const ProblemSet& problems) : problems_(problems) {
  Json list = Json::array();
  for (const auto& problem : problems_.problems()) {
    list.push_back(problem_summary_json(*problem));
    rendered_.push_back({problem.get(), problem_to_json(*problem).dump()});
    if (!known_ids_.empty()) known_ids_ += ", ";
    known_ids_ += problem->id;
  }
  list_json_ = Json{{"problems", std::move(list)}}.dump();
}

const Router::Rendered* Router::find(std::string_view id) const {
  const Problem* problem = problems_.find(id);
  for (const Rendered& rendered : rendered_) {
    if (rendered.problem == problem) return &rendered;
  }
  return nullptr;
}

Routed Router::route(const Request& request) const {
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

Routed Router::route_unguarded(const Request& request) const {
  const std::string_view target = request.target();
  const Match match = match_path(target.substr(0, target.find('?')));
  if (match.route == Route::kNone) {
    return {error_answer(request, {error_code::kNotFound,
                                   std::string("there is no such path; the service answers ") +
                                       std::string(kRouteList),
                                   ""}),
            "", std::nullopt};
  }

  const bool get = request.method() == http::verb::get || request.method() == http::verb::head;
  const bool allowed = is_get_route(match.route) ? get : request.method() == http::verb::post;
  if (!allowed) return {method_not_allowed(request, match.route), "", std::nullopt};

  switch (match.route) {
    case Route::kHealth:
      return {answer_get(request, R"({"status":"ok"})"), "", std::nullopt};
    case Route::kProblems:
      return {answer_get(request, list_json_), "", std::nullopt};
    default:
      break;
  }

  const Rendered* rendered = find(match.id);
  if (rendered == nullptr) {
    return {error_answer(request,
                         {error_code::kNotFound,
                          "there is no problem with this id; the problems are " + known_ids_, ""}),
            "", std::nullopt};
  }
  if (match.route == Route::kProblem) {
    return {answer_get(request, rendered->json), rendered->problem->id, std::nullopt};
  }
  return answer_grade(*rendered->problem, request);
}

Routed Router::answer_grade(const Problem& problem, const Request& request) const {
  const auto content_type = request.find(http::field::content_type);
  if (content_type == request.end() || !is_json_content_type(content_type->value())) {
    std::string message = "the body must be JSON, sent with Content-Type: application/json; ";
    message += content_type == request.end() ? "the request has no Content-Type"
                                             : "the request's Content-Type is not JSON";
    return {error_answer(request, {error_code::kUnsupportedMediaType, message, ""}), problem.id,
            std::nullopt};
  }

  Result<Submission> submission = parse_submission(problem, request.body());
  if (!submission) return {error_answer(request, submission.error()), problem.id, std::nullopt};

  const GradeReport report =
      headgrader::grade(problem, submission->weights, submission->max_failures);
  return {json_answer(request, http::status::ok, report_json(problem, report)),
          problem.id, report.passed};
}

}  // namespace headgrader::server

#include "router.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <initializer_list>
#include <optional>
#include <utility>

#include "headgrader/grade.h"
#include "headgrader/limits.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "lti_service.h"

namespace headgrader::server {
namespace {

enum class Route { kNone, kBadEncoding, kProblems, kProblem, kGrade, kHealth };

struct Match {
  Route route = Route::kNone;
  std::string id;  // for kProblem and kGrade, percent-decoded
};

constexpr std::string_view kRouteList =
    "GET /v1/problems, GET /v1/problems/{id}, POST /v1/problems/{id}/grade and GET /healthz";

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
  if (is({"v1", "problems"})) return {Route::kProblems, {}};
  if (is({"v1", "problems", ""}) && !segments[2].empty()) return {Route::kProblem, segments[2]};
  if (is({"v1", "problems", "", "grade"}) && !segments[2].empty()) {
    return {Route::kGrade, segments[2]};
  }
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

Router::Router(const ProblemSet& problems, LtiService* lti)
    : problems_(problems), known_ids_(problems.ids_text()), lti_(lti) {
  Json list = Json::array();
  for (const auto& problem : problems_.problems()) {
    list.push_back(problem_summary_json(*problem));
    rendered_.push_back({problem.get(), problem_to_json(*problem).dump()});
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
    const Rendered* rendered = find(match.id);
    if (rendered == nullptr) return false;
    const Problem& problem = *rendered->problem;
    return problem.count_states == nullptr && problem.tested_total() > limits::kLongGradingStrings;
  } catch (const std::exception&) {
    return false;  // out of memory: route() answers it
  }
}

// The checks run in this order: path, problem id, method, then (grade) content type and body.
// An unknown problem is 404 whatever the method: its grade path names nothing that exists.
Routed Router::route_unguarded(const Request& request) const {
  if (lti_ != nullptr) {
    if (std::optional<Response> answer = lti_->route(request)) {
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

  const Rendered* rendered = nullptr;
  if (match.route == Route::kProblem || match.route == Route::kGrade) {
    rendered = find(match.id);
    if (rendered == nullptr) {
      return {
          error_answer(request,
                       {error_code::kNotFound,
                        "there is no problem with this id; the problems are " + known_ids_, ""}),
          "", std::nullopt};
    }
  }
  const std::string_view problem_id =
      rendered != nullptr ? std::string_view(rendered->problem->id) : std::string_view();

  const bool get = request.method() == http::verb::get || request.method() == http::verb::head;
  const bool allowed = is_get_route(match.route) ? get : request.method() == http::verb::post;
  if (!allowed) {
    return {method_not_allowed(request, match.route), std::string(problem_id), std::nullopt};
  }

  switch (match.route) {
    case Route::kHealth:
      return {json_answer(request, http::status::ok, R"({"status":"ok"})"), "", std::nullopt};
    case Route::kProblems:
      return {json_answer(request, http::status::ok, list_json_), "", std::nullopt};
    case Route::kProblem:
      return {json_answer(request, http::status::ok, rendered->json), std::string(problem_id),
              std::nullopt};
    default:
      return answer_grade(*rendered->problem, request);
  }
}

Routed Router::answer_grade(const Problem& problem, const Request& request) const {
  // A student token (API.md §11) grades its own problem only; who may grade comes first.
  std::optional<LtiStudent> student;
  if (lti_ != nullptr) {
    Result<std::optional<LtiStudent>> authorized = lti_->authorize_grade(request, problem.id);
    if (!authorized) return {error_answer(request, authorized.error()), problem.id, std::nullopt};
    student = std::move(authorized).value();
  }
  const auto content_type = request.find(http::field::content_type);
  if (content_type == request.end() || !is_json_content_type(content_type->value())) {
    std::string message = "the body must be JSON, sent with Content-Type: application/json; ";
    if (content_type == request.end()) {
      message += "the request has no Content-Type";
    } else {
      // What came, so that the sender sees its mistake (curl -d sends a form type); bytes
      // that are not printable ASCII as '?', so that the answer stays valid UTF-8.
      constexpr std::size_t kShownBytes = 100;
      const std::string_view value = content_type->value();
      message += "the request's Content-Type is \"";
      for (const char c : value.substr(0, kShownBytes)) message += c >= ' ' && c <= '~' ? c : '?';
      message += value.size() > kShownBytes ? "…\"" : "\"";
    }
    return {error_answer(request, {error_code::kUnsupportedMediaType, message, ""}), problem.id,
            std::nullopt};
  }

  Result<Submission> submission = parse_submission(problem, request.body());
  if (!submission) return {error_answer(request, submission.error()), problem.id, std::nullopt};

  const GradeReport report =
      headgrader::grade(problem, submission->weights, submission->max_failures);
  if (student) lti_->graded(*student, report.score, "", std::chrono::system_clock::now());
  return {json_answer(request, http::status::ok, report_json(problem, report)), problem.id,
          report.passed};
}

}  // namespace headgrader::server

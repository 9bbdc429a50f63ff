#include "router.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <initializer_list>
#include <optional>
#include <utility>

#include "headgrader/check_steps.h"
#include "headgrader/diagnosis.h"
#include "headgrader/grade.h"
#include "headgrader/grading_cost.h"
#include "headgrader/limits.h"
#include "headgrader/problem_warnings.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "access_log.h"
#include "lti_service.h"
#include "openapi_document.h"
#include "secrets.h"
#include "staff_routes.h"
#include "static_files.h"

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
  kOpenApi,
  kPage,        // the student page and its files (API.md §10; server/static_files.h)
  kCheckSteps,  // POST /v1/problems/{id}/check-steps (API.md §10)
  kSubmissions,     // GET /v1/submissions (staff, §8)
  kSubmissionsCsv,  // GET /v1/submissions.csv (staff)
  kSubmission,      // GET /v1/submissions/{id} (staff)
  kStats,           // GET /v1/problems/{id}/stats (staff)
  kRegrade,         // POST /v1/problems/{id}/regrade (staff)
  kPassback,        // GET /v1/passback (staff, §11)
  kPassbackRetry,   // POST /v1/passback/{id}/retry (staff, §11)
};

struct Match {
  Route route = Route::kNone;
  std::string id;  // for kProblem and kGrade, percent-decoded
};

constexpr std::string_view kRouteList =
    "GET /v1/problems, GET /v1/problems/{id}, POST /v1/problems/{id}/grade, "
    "POST /v1/problems/{id}/check-steps, GET /healthz, the student page at GET / "
    "(described at GET /v1/openapi.json; and, with a staff key, GET /v1/problems/status, "
    "POST /v1/problems/validate, PUT and DELETE /v1/problems/{id}, GET /v1/submissions, "
    "GET /v1/submissions.csv, GET /v1/submissions/{id}, GET /v1/problems/{id}/stats, "
    "POST /v1/problems/{id}/regrade, GET /v1/passback, POST /v1/passback/{id}/retry)";

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
  // The student page and its files: the id is the path itself.
  if (path == "/" || path.starts_with("/static/")) return {Route::kPage, std::string(path)};
  if (is({"v1", "problems"})) return {Route::kProblems, {}};
  // The §9 routes take these two names: no problem with either id can be fetched or replaced.
  if (is({"v1", "problems", "status"})) return {Route::kProblemsStatus, {}};
  if (is({"v1", "problems", "validate"})) return {Route::kValidate, {}};
  if (is({"v1", "problems", ""}) && !segments[2].empty()) return {Route::kProblem, segments[2]};
  if (is({"v1", "problems", "", "grade"}) && !segments[2].empty()) {
    return {Route::kGrade, segments[2]};
  }
  if (is({"v1", "problems", "", "check-steps"}) && !segments[2].empty()) {
    return {Route::kCheckSteps, segments[2]};
  }
  if (is({"v1", "problems", "", "stats"}) && !segments[2].empty()) {
    return {Route::kStats, segments[2]};
  }
  if (is({"v1", "problems", "", "regrade"}) && !segments[2].empty()) {
    return {Route::kRegrade, segments[2]};
  }
  if (is({"v1", "passback"})) return {Route::kPassback, {}};
  if (is({"v1", "passback", "", "retry"}) && !segments[2].empty()) {
    return {Route::kPassbackRetry, segments[2]};
  }
  if (is({"v1", "submissions"})) return {Route::kSubmissions, {}};
  if (is({"v1", "submissions.csv"})) return {Route::kSubmissionsCsv, {}};
  if (is({"v1", "submissions", ""}) && !segments[2].empty()) {
    return {Route::kSubmission, segments[2]};
  }
  return {};
}

// The methods each route answers (HEAD wherever GET is), for the check and for Allow. PUT and
// DELETE of a problem exist only with --keys (`staff`): without, the server is Part 1's, where
// they are 405 (docs/course-staff.md).
std::string_view allowed_methods(Route route, bool staff) {
  switch (route) {
    case Route::kGrade:
    case Route::kCheckSteps:
    case Route::kValidate:
    case Route::kRegrade:
    case Route::kPassbackRetry:
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
    case Route::kCheckSteps:
    case Route::kValidate:
    case Route::kRegrade:
    case Route::kPassbackRetry:
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

bool is_record_route(Route route) {
  return route == Route::kSubmissions || route == Route::kSubmissionsCsv ||
         route == Route::kSubmission || route == Route::kStats || route == Route::kRegrade;
}

std::string_view request_query(std::string_view target) {
  const std::size_t mark = target.find('?');
  return mark == std::string_view::npos ? std::string_view() : target.substr(mark + 1);
}

// The staff routes of the submission record (API.md §8), once the caller may use them.
Routed answer_record_route(Route route, const std::string& id,
                           const CatalogSnapshot::Entry* entry, const Principal& who,
                           const Request& request, const RecordSettings& records) {
  const std::string problem = entry != nullptr ? entry->problem->id : "";
  const unsigned version = request.version();
  const bool keep_alive = request.keep_alive();
  if (records.store == nullptr) {
    return {error_response({error_code::kStoreUnavailable,
                            "this server keeps no record of gradings (--store none)", ""},
                           version, keep_alive),
            problem, std::nullopt};
  }
  store::SubmissionStore& store = *records.store;
  const std::string_view query = request_query(request.target());
  switch (route) {
    case Route::kSubmissions:
      return {list_submissions(store, query, false, version, keep_alive), "", std::nullopt};
    case Route::kSubmissionsCsv:
      return {list_submissions(store, query, true, version, keep_alive), "", std::nullopt};
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
    if (match.route == Route::kRegrade) return service_.records.store != nullptr;  // many
    if (match.route != Route::kGrade) return false;
    const std::shared_ptr<const CatalogSnapshot> snapshot = service_.problems->current();
    const CatalogSnapshot::Entry* entry = snapshot->find(match.id);
    if (entry == nullptr) return false;
    return grading_cost(*entry->problem) > limits::kLongGradingCost;
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

  const WebAsset* asset = match.route == Route::kPage ? find_web_asset(match.id) : nullptr;
  if (match.route == Route::kPage && asset == nullptr) {
    return {error_answer(request, {error_code::kNotFound,
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
  if ((match.route == Route::kProblem || match.route == Route::kGrade ||
       match.route == Route::kCheckSteps || match.route == Route::kStats ||
       match.route == Route::kRegrade) &&
      !creates) {
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

  const bool passback_route =
      match.route == Route::kPassback || match.route == Route::kPassbackRetry;
  const bool staff_route = is_record_route(match.route) || passback_route ||
                           match.route == Route::kProblemsStatus ||
                           match.route == Route::kValidate ||
                           (match.route == Route::kProblem &&
                            (request.method() == http::verb::put ||
                             request.method() == http::verb::delete_));
  // Checking steps is granted as grading is (the page sends the same credentials to both).
  const bool needs_credentials =
      staff_route || match.route == Route::kGrade || match.route == Route::kCheckSteps;
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

  if (is_record_route(match.route)) {
    return answer_record_route(match.route, match.id, entry, who, request, service_.records);
  }
  if (passback_route) return answer_passback(match.route == Route::kPassbackRetry, match.id, request);

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
    case Route::kPage:
      return {web_asset_response(*asset, request), "", std::nullopt};
    case Route::kCheckSteps:
      return answer_check_steps(*entry, request);
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

  const RecordSettings& records = service_.records;
  if (records.store == nullptr) {  // --store none: Part 1 exactly
    const GradeReport report =
        headgrader::grade_with_diagnosis(problem, submission->weights, submission->max_failures);
    // Without a store a launched student's score waits in memory (lost if the server stops).
    if (who.kind == Principal::Kind::kStudent && service_.lti != nullptr) {
      service_.lti->graded(who.student, report.score, "", std::chrono::system_clock::now());
    }
    return {json_answer(request, http::status::ok, report_json(problem, report)), problem.id,
            report.passed};
  }

  // Who the record names: the key's name, and the student of the body or of the launch (§11).
  GraderIdentity identity;
  std::optional<std::string> student = submission->student;
  if (who.kind == Principal::Kind::kKey) {
    identity.key_name = who.key_name;
    identity.lms = who.role == Role::kLms;
    identity.idempotency_scope = who.key_name;
  } else if (who.kind == Principal::Kind::kStudent) {
    student = who.student.student;
    identity.idempotency_scope = "student:" + who.student.student;
  }
  const store::TimeMs now = records.now();
  std::optional<store::IdempotencyTag> tag;
  if (std::optional<Response> refused =
          check_before_grading(problem.id, request, student, identity, tag, now)) {
    return {std::move(*refused), problem.id, std::nullopt};
  }

  const GradeReport report =
      headgrader::grade_with_diagnosis(problem, submission->weights, submission->max_failures);
  auto pending = std::make_shared<PendingGrade>();
  store::SubmissionRecord& record = pending->record;
  record.time = now;
  record.id = store::new_submission_id(now);
  record.problem = problem.id;
  record.problem_sha256 = entry.sha256;
  record.student = std::move(student);
  record.key = identity.key_name;
  record.body = std::string(request.body());
  record.passed = report.passed;
  record.score = report.score;
  record.tests_total = static_cast<std::int64_t>(report.total);
  record.tests_passed = static_cast<std::int64_t>(report.passed_count);
  record.tests_failed = static_cast<std::int64_t>(report.failed);
  for (const Failure& failure : report.failures) {
    record.failing_inputs.push_back(problem.spell(failure.input));
  }
  record.answer = with_submission_id(report_json(problem, report), record.id);
  // A launched student's grading names the launch's course and link, and its score goes to
  // the LMS through the outbox, queued in the record's own transaction (API.md §11).
  if (who.kind == Principal::Kind::kStudent && service_.lti != nullptr) {
    Result<LtiService::LaunchOfGrading> of =
        service_.lti->launch_of(who.student, report.score, now, problem.passback);
    if (!of) {
      return {error_answer(request, {error_code::kStoreUnavailable,
                                     "the grading could not be kept, so it is not answered; try "
                                     "again (the store said: " +
                                         of.error().message + ")",
                                     ""}),
              problem.id, std::nullopt};
    }
    LtiService::LaunchOfGrading launch = std::move(*of);
    record.lms_context = std::move(launch.context);
    record.lms_resource_link = std::move(launch.resource_link);
    pending->passback = std::move(launch.passback);
    if (pending->passback) pending->recorded = [lti = service_.lti] { lti->score_queued(); };
  }
  if (tag) pending->body_sha256 = tag->body_sha256;
  record.idempotency = std::move(tag);
  pending->version = request.version();
  pending->keep_alive = request.keep_alive();
  return {Response{}, problem.id, report.passed, std::move(pending)};
}

std::optional<Response> Router::check_before_grading(std::string_view problem,
                                                     const Request& request,
                                                     const std::optional<std::string>& student,
                                                     const GraderIdentity& identity,
                                                     std::optional<store::IdempotencyTag>& tag,
                                                     store::TimeMs now) const {
  const RecordSettings& records = service_.records;
  store::SubmissionStore& store = *records.store;
  const auto unavailable = [&](const Error& error) {
    return error_answer(request, {error_code::kStoreUnavailable,
                                  "the record of gradings cannot be read, so nothing is graded; "
                                  "try again (the store said: " +
                                      error.message + ")",
                                  ""});
  };
  if (const auto header = request.find("Idempotency-Key"); header != request.end()) {
    if (std::optional<Error> bad = check_idempotency_key(header->value())) {
      return error_answer(request, *bad);
    }
    tag = store::IdempotencyTag{identity.idempotency_scope, std::string(header->value()),
                                sha256_hex(request.body())};
    auto earlier = store.find_idempotent(tag->scope, tag->key);
    if (!earlier) return unavailable(earlier.error());
    if (earlier->has_value()) {
      // The first answer again, byte for byte; or a conflict when the body differs.
      PendingGrade replay;
      replay.body_sha256 = tag->body_sha256;
      replay.version = request.version();
      replay.keep_alive = request.keep_alive();
      return replay.finish(store::CommitOutcome{false, std::move(**earlier)});
    }
  }
  if (!records.rate_limit) return std::nullopt;
  const RateLimit& limit = *records.rate_limit;
  const store::TimeMs since = now - limit.period.count() + 1;  // the window ends now
  if (identity.lms && identity.key_name) {
    const std::int64_t cap = limit.count * limits::kKeyRateMultiple;
    auto used = store.gradings_since(
        {store::RateScope::Kind::kKey, "", "", *identity.key_name}, since, cap);
    if (!used) return unavailable(used.error());
    if (used->count >= cap && used->cap_th_newest) {
      return rate_limited_answer(limit, true, now, *used->cap_th_newest + limit.period.count(),
                                 request.version(), request.keep_alive());
    }
  }
  if (student) {
    auto used = store.gradings_since({store::RateScope::Kind::kStudentProblem, *student,
                                      std::string(problem), ""},
                                     since, limit.count);
    if (!used) return unavailable(used.error());
    if (used->count >= limit.count && used->cap_th_newest) {
      return rate_limited_answer(limit, false, now, *used->cap_th_newest + limit.period.count(),
                                 request.version(), request.keep_alive());
    }
  }
  return std::nullopt;
}

// The staff's view of the scores sent to LMSs (API.md §11).
Routed Router::answer_passback(bool retry, const std::string& id, const Request& request) const {
  if (service_.lti == nullptr) {
    return {error_answer(request, {error_code::kNotFound,
                                   "this server sends no scores to an LMS: it was started "
                                   "without --lti",
                                   ""}),
            "", std::nullopt};
  }
  if (retry) {
    Result<bool> requeued = service_.lti->passback_retry(id);
    if (!requeued) return {error_answer(request, requeued.error()), "", std::nullopt};
    if (!*requeued) {
      return {error_answer(request, {error_code::kNotFound,
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
  std::string status;
  for (std::string_view query = request_query(request.target()); !query.empty();) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.starts_with("status=")) status = std::string(pair.substr(7));
  }
  Result<std::string> list = service_.lti->passback_list(status);
  if (!list) return {error_answer(request, list.error()), "", std::nullopt};
  return {json_answer(request, http::status::ok, std::move(*list)), "", std::nullopt};
}

Routed Router::answer_check_steps(const CatalogSnapshot::Entry& entry,
                                 const Request& request) const {
  const Problem& problem = *entry.problem;
  if (std::optional<Error> refused = not_json(request)) {
    return {error_answer(request, *refused), problem.id, std::nullopt};
  }
  Result<StepsReport> report = check_steps(problem, request.body());
  if (!report) return {error_answer(request, report.error()), problem.id, std::nullopt};
  return {json_answer(request, http::status::ok, steps_report_json(*report)), problem.id,
          std::nullopt};
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

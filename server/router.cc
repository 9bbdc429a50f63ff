#include "router.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "headgrader/check_steps.h"
#include "headgrader/grade.h"
#include "headgrader/grade_request.h"
#include "headgrader/grading_cost.h"
#include "headgrader/limits.h"
#include "headgrader/submission.h"
#include "lti_service.h"
#include "openapi_document.h"
#include "route_table.h"
#include "secrets.h"
#include "staff_routes.h"
#include "static_files.h"

namespace headgrader::server {
namespace {

Response method_not_allowed(const Request& request, Route route, bool staff) {
  Response response =
      error_answer(request, {error_code::kMethodNotAllowed,
                             std::string(request.method_string()) + " is not allowed here; use " +
                                 methods_to_use(route, staff),
                             ""});
  response.set(http::field::allow, allowed_methods(route, staff));
  return response;
}

// A refusal by auth.h: 401 carries WWW-Authenticate.
Response denied(const Request& request, const Error& error) {
  if (error.code == error_code::kUnauthorized) {
    return unauthorized_response(error, request.version(), request.keep_alive());
  }
  return error_answer(request, error);
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

// The one place where anything thrown (an allocation failure, a bug) becomes an answer: for
// a request routed here, and for the rest of a grading run later (Routed::rest).
template <class Work>
Routed guarded(const Request& request, Work&& work) {
  try {
    return work();
  } catch (const std::exception&) {
    return {
        error_answer(request, {error_code::kInternalError,
                               "the server failed to answer this request; please report it", ""}),
        "", std::nullopt};
  }
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
  return Error{error_code::kUnsupportedMediaType, message, ""};
}

Router::Router(const ProblemSet& problems)
    : owned_catalog_(std::make_unique<ProblemCatalog>(problems)),
      owned_service_{owned_catalog_.get()},
      service_(owned_service_) {}

Router::Router(const Service& service) : service_(service) {}

Routed Router::route(const Request& request) const {
  Routed routed = route_deferring(request);
  if (routed.rest) return routed.rest(request);
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

  if (match.route == Route::kRegrade && service_.records.store != nullptr) {
    // The latest submission of every student, graded again: many gradings.
    return later([this, snapshot, entry, who, id = match.id](const Request& same) {
      return answer_record_route(Route::kRegrade, id, entry, who, same, service_.records);
    });
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

// What a grading needs once its request has been checked, kept for Router::finish_grade
// when that runs later, off the io threads (Routed::rest).
struct Router::GradeJob {
  std::shared_ptr<const CatalogSnapshot> snapshot;  // keeps `entry` alive
  const CatalogSnapshot::Entry* entry = nullptr;
  Principal who;
  Submission submission;
  GraderIdentity identity;
  std::optional<std::string> student;
  std::optional<store::IdempotencyTag> tag;
  store::TimeMs now = 0;
};

Routed Router::answer_grade(const std::shared_ptr<const CatalogSnapshot>& snapshot,
                            const CatalogSnapshot::Entry& entry, const Principal& who,
                            const Request& request) const {
  const Problem& problem = *entry.problem;
  if (std::optional<Error> refused = unless_json_body(request)) {
    return {error_answer(request, *refused), problem.id, std::nullopt};
  }
  Result<Submission> submission = parse_submission(problem, request.body());
  if (!submission) return {error_answer(request, submission.error()), problem.id, std::nullopt};

  auto job = std::make_shared<GradeJob>();
  job->snapshot = snapshot;
  job->entry = &entry;
  job->who = who;
  job->submission = std::move(*submission);
  const RecordSettings& records = service_.records;
  if (records.store != nullptr) {
    // Who the record names: the key's name, and the student of the body or of the launch (§11).
    job->student = job->submission.student;
    if (who.kind == Principal::Kind::kKey) {
      job->identity.key_name = who.key_name;
      job->identity.lms = who.role == Role::kLms;
      job->identity.idempotency_scope = who.key_name;
    } else if (who.kind == Principal::Kind::kStudent) {
      job->student = who.student.student;
      job->identity.idempotency_scope = "student:" + who.student.student;
    }
    job->now = records.now();
    if (std::optional<Response> refused = check_before_grading(
            problem.id, request, job->student, job->identity, job->tag, job->now)) {
      return {std::move(*refused), problem.id, std::nullopt};
    }
  }
  // A grading string by string over many strings, or one whose answer is large (max_failures
  // and n_q are the submission's), takes more than milliseconds: the server runs it off the
  // threads that read and write.
  if (const std::uint64_t numbers = answer_cost(problem, job->submission);
      grading_cost(problem) > limits::kLongGradingCost || numbers > limits::kLongAnswerNumbers) {
    Routed routed{Response{}, problem.id, std::nullopt};
    routed.rest = [this, job](const Request& same) {
      return guarded(same, [&] { return finish_grade(*job, same); });
    };
    routed.rest_answer_numbers = numbers;
    return routed;
  }
  return finish_grade(*job, request);
}

Routed Router::finish_grade(GradeJob& job, const Request& request) const {
  const CatalogSnapshot::Entry& entry = *job.entry;
  const Problem& problem = *entry.problem;
  const Principal& who = job.who;
  const RecordSettings& records = service_.records;
  if (records.store == nullptr) {  // --store none: Part 1 exactly
    Graded graded = grade_submission(problem, job.submission);
    // Without a store a launched student's score waits in memory (lost if the server stops).
    if (who.kind == Principal::Kind::kStudent && service_.lti != nullptr) {
      service_.lti->graded(who.student, graded.report.score, "",
                           std::chrono::system_clock::now());
    }
    return {json_answer(request, http::status::ok, std::move(graded.answer)), problem.id,
            graded.report.passed};
  }

  const store::TimeMs now = job.now;
  const Graded graded = grade_submission(problem, job.submission);
  const GradeReport& report = graded.report;
  auto pending = std::make_shared<PendingGrade>();
  pending->record = record_of(problem, entry.sha256, graded, std::string(request.body()), now);
  store::SubmissionRecord& record = pending->record;
  record.student = std::move(job.student);
  record.key = job.identity.key_name;
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
  if (job.tag) pending->body_sha256 = job.tag->body_sha256;
  record.idempotency = std::move(job.tag);
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

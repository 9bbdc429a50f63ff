// What one student sees of a problem (API.md §15): GET /v1/problems/{id}, the problem as
// written or as a student sees it (their variant: ?student=S with an lms or staff key, or the
// student token of a launch of this problem), and their steps checked in their variant's
// coordinates (§10). Part of Router (router.h).
#include <utility>

#include "common/url_encoding.h"
#include "headgrader/check_steps.h"
#include "headgrader/grading_cost.h"
#include "headgrader/limits.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "router.h"

namespace headgrader::server {
namespace {

Routed refused(const Request& request, const Error& error, std::string problem) {
  if (error.code == ErrorCode::kUnauthorized) {
    return {unauthorized_response(error, request.version(), request.keep_alive()),
            std::move(problem), std::nullopt};
  }
  return {error_answer(request, error), std::move(problem), std::nullopt};
}

// ?student=S; nullopt without it (or "?student=": no student). Other parameters are ignored,
// as they always were on this route (a cache-buster, a tracking tag).
Result<std::optional<std::string>> student_parameter(std::string_view query) {
  const std::optional<FormFields> fields = parse_form(query);
  if (!fields) {
    if (query.find("student") == std::string_view::npos) return std::optional<std::string>();
    return Error{ErrorCode::kBadRequest,
                 "the query string is not valid: each '%' must be followed by two hexadecimal "
                 "digits, and student given once",
                 "student"};
  }
  const auto found = fields->find("student");
  if (found == fields->end() || found->second.empty()) return std::optional<std::string>();
  return std::optional<std::string>(found->second);
}

}  // namespace

Result<const CatalogSnapshot::Entry*> Router::given_problem(
    const RouteCall& call, const std::optional<std::string>& student) const {
  if (call.pool == nullptr) return call.entry;
  if (!student) {
    return Error{ErrorCode::kMissingField,
                 "\"" + call.pool->id +
                     "\" is a pool: each student is given one of its problems, so name the "
                     "student (\"student\" with a key, or the student's own token)",
                 "student"};
  }
  return &call.snapshot->member_of(*call.pool, service_.variant_secret, *student);
}

std::optional<std::string> Router::viewer(const Principal& who,
                                          const std::optional<std::string>& named) {
  if (who.kind == Principal::Kind::kStudent) return who.student.student;
  return named;
}

Result<ProblemView> Router::student_view(const CatalogSnapshot& snapshot,
                                         const CatalogSnapshot::Entry& entry,
                                         const std::optional<std::string>& student) const {
  return snapshot.for_student(entry, service_.variant_secret, student);
}

Routed Router::on_problem(const RouteCall& call) const {
  const Request& request = call.request;
  const std::string& id = call.id;
  Result<std::optional<std::string>> named = student_parameter(request_query(request.target()));
  if (!named) return refused(request, named.error(), id);
  std::optional<std::string> student = std::move(*named);
  // The route is open to anyone; credentials are read only when they change the answer. One
  // that is sent and is wrong is refused rather than ignored: a student whose token expired
  // would otherwise be shown the problem as written and solve it in the wrong coordinates.
  if (student && service_.keys == nullptr) {
    return refused(request,
                   {ErrorCode::kStaffDisabled,
                    "?student= shows a student's variant to an lms or staff key, and this server "
                    "has no keys: start it with --keys FILE",
                    "student"},
                   id);
  }
  if (student || request.find(http::field::authorization) != request.end()) {
    const std::shared_ptr<const KeyRing> keys =
        service_.keys != nullptr ? service_.keys->current() : nullptr;
    Result<Principal> who = authenticate(request, keys.get(), service_.student_tokens);
    if (!who) return refused(request, who.error(), id);
    if (student && who->kind != Principal::Kind::kKey) {
      return refused(
          request,
          {who->kind == Principal::Kind::kNobody ? ErrorCode::kUnauthorized : ErrorCode::kForbidden,
           "?student= shows another student's variant: it needs an lms or staff key "
           "(Authorization: Bearer KEY); a student's own token shows their variant "
           "without it",
           "student"},
          id);
    }
    // A token of a launch of another problem grants nothing here: the problem as written.
    if (who->kind == Principal::Kind::kStudent && who->student.problem == id) {
      student = who->student.student;
    }
  }
  // A pool without a student: the pool as written. With one: the member given to them.
  if (call.pool != nullptr && !student) {
    return {json_answer(request, http::status::ok, CatalogSnapshot::pool_json(*call.pool)), id,
            std::nullopt};
  }
  Result<const CatalogSnapshot::Entry*> given = given_problem(call, student);
  if (!given) return refused(request, given.error(), id);
  const CatalogSnapshot::Entry* entry = *given;
  const auto answer = [this, snapshot = call.snapshot, entry, student, id,
                       pool = call.pool](const Request& same) -> Routed {
    Result<ProblemView> view = student_view(*snapshot, *entry, student);
    if (!view) return refused(same, view.error(), id);
    std::string json(view->json);
    if (pool != nullptr) {  // the member, and the pool it was given from (API.md §15)
      json.pop_back();
      json += ",\"pool\":" + Json(pool->id).dump() + "}";
    }
    return {json_answer(same, http::status::ok, std::move(json)), id, std::nullopt};
  };
  // A new variant is proved by grading its reference: as long as a grading of the problem.
  if (student && !service_.variant_secret.empty() && entry->problem->variants.any() &&
      grading_cost(*entry->problem) > limits::kLongGradingCost) {
    return later(answer);
  }
  return answer(request);
}

// The steps of the student's head on their variant: the token's student, else the body's
// `student` (read again by check_steps, which allows it).
Routed Router::on_check_steps(const RouteCall& call) const {
  const Request& request = call.request;
  const std::string& id = call.id;
  if (std::optional<Error> refused = unless_json_body(request)) {
    return {error_answer(request, *refused), id, std::nullopt};
  }
  const std::optional<std::string> student = viewer(call.who, submission_student(request.body()));
  Result<const CatalogSnapshot::Entry*> given = given_problem(call, student);
  if (!given) return refused(request, given.error(), id);
  Result<ProblemView> view = student_view(*call.snapshot, **given, student);
  if (!view) return refused(request, view.error(), id);
  Result<StepsReport> report = check_steps(*view->problem, request.body());
  if (!report) return {error_answer(request, report.error()), id, std::nullopt};
  return {json_answer(request, http::status::ok, steps_report_json(*report)), id, std::nullopt};
}

}  // namespace headgrader::server

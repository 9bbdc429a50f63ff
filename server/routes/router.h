// The service's routes (API.md §5, §7, §9) as a function from a parsed request to a response:
// no sockets, so every route and every error status is unit-testable. It reads the service's
// parts (service.h): each request takes the problems' current snapshot once and keeps it.
// Failures of any kind come back as JSON responses.
// Thread-safety: route() may run on any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "body_stream.h"
#include "error_response.h"
#include "headgrader/grade_request.h"
#include "headgrader/problem.h"
#include "metrics.h"
#include "route_table.h"
#include "service.h"

namespace headgrader::server {

// A response and what the access log wants to know about it.
struct Routed {
  Response response;
  std::string problem;         // id of the known problem the request named, else empty
  std::optional<bool> passed;  // the grade's `passed`, when a grading ran
  // Set when the answer waits for the record (API.md §8): commit pending->record, then answer
  // pending->finish(outcome); `response` is then empty.
  std::shared_ptr<PendingGrade> pending = nullptr;
  // Set by Router::route_deferring instead of all the above when the rest of the work may be
  // long: a grading string by string over many strings (limits::kLongGradingCost) or whose
  // answer is large (limits::kLongAnswerNumbers), a regrade, a problem file to validate or PUT
  // (loading proves its reference). rest(request), with the same request, gives the answer;
  // the server calls it off the threads that read and write (session.cc). It keeps what it
  // needs alive; it throws nothing.
  std::function<Routed(const Request&)> rest = nullptr;
  // With `rest`: the numbers its answer may hold (answer_cost), 0 when not estimated.
  std::uint64_t rest_answer_numbers = 0;
  // Set for a body too large to hold at once (the CSV export of every record): `response` is
  // then its head alone, without Content-Length, and the body comes piece by piece from here
  // (for HEAD too: the session sends the head alone).
  std::shared_ptr<BodyStream> stream = nullptr;
  // The route table's row the path matched (headgrader_http_requests_total's route), set by
  // route_deferring; null for no row. Routed::rest's answer leaves it null: the first's holds.
  const RouteRow* row = nullptr;
};

// Work that may take seconds, left to the caller (Routed::rest), which runs it off the io
// threads; an exception it throws becomes the 500 answer (answer_guard.h).
Routed later(std::function<Routed(const Request&)> work);

// The answer to HEAD: the same headers, Content-Length that of the body a GET would get,
// and no body (RFC 9110 §9.3.2), errors included.
Response headers_only(Response response);

// Media type of a Content-Type value is application/json (case-insensitive), parameters
// such as "; charset=utf-8" allowed.
bool is_json_content_type(std::string_view value);

// 415 unless the body is sent as JSON, with what came, so that the sender sees its mistake
// (curl -d sends a form type); bytes that are not printable ASCII as '?', so the answer stays
// UTF-8.
std::optional<Error> unless_json_body(const Request& request);

// What a router answers: the service's routes, or only GET /metrics without a key (the
// listener of --metrics-address, API.md §17), 404 for any other path.
enum class RouterScope { kService, kMetricsOnly };

class Router {
 public:
  // `service` and what it points to must outlive the router.
  explicit Router(const Service& service, RouterScope scope = RouterScope::kService);

  // The answer, computed on the calling thread whatever it costs; a streamed body is read
  // whole into `response`.
  Routed route(const Request& request) const;
  // The same, except that work that may be long comes back with Routed::rest set once the
  // request has been checked (its credentials; for a grading its body, Idempotency-Key and
  // attempt limits too), for the caller to finish elsewhere.
  Routed route_deferring(const Request& request) const;

  // The submission record's store; null with --store none.
  store::SubmissionStore* store() const { return service_.records.store; }
  // What the sessions count their requests in; never null.
  Metrics& metrics() const { return *metrics_; }

 private:
  struct GradeJob;
  // The table names the handlers below.
  friend std::span<const RouteRow> route_table();

  // `row`: the route table's row the path matched, once it has.
  Routed route_unguarded(const Request& request, const RouteRow*& row) const;

  // The handlers of route_table(), one per route and method (HEAD goes with GET).
  Routed on_health(const RouteCall& call) const;
  // The operator's (operations_routes.cc).
  Routed on_ready(const RouteCall& call) const;
  Routed on_metrics(const RouteCall& call) const;  // metrics_route.cc
  Routed on_openapi(const RouteCall& call) const;
  Routed on_page(const RouteCall& call) const;
  Routed on_problems(const RouteCall& call) const;
  Routed on_problem(const RouteCall& call) const;
  Routed on_grade(const RouteCall& call) const;
  Routed on_check_steps(const RouteCall& call) const;
  // The routes that change what is served and the passback outbox (problem_routes.cc).
  Routed on_status(const RouteCall& call) const;
  Routed on_validate(const RouteCall& call) const;
  Routed on_solve(const RouteCall& call) const;
  Routed on_put(const RouteCall& call) const;
  Routed on_delete(const RouteCall& call) const;
  Routed on_passback_list(const RouteCall& call) const;
  Routed on_passback_retry(const RouteCall& call) const;
  // The submission record's routes (record_routes.cc).
  Routed on_submissions(const RouteCall& call) const;
  Routed on_submissions_csv(const RouteCall& call) const;
  Routed on_students_csv(const RouteCall& call) const;
  Routed on_submission(const RouteCall& call) const;
  Routed on_stats(const RouteCall& call) const;
  Routed on_regrade(const RouteCall& call) const;
  Routed on_integrity(const RouteCall& call) const;
  Routed on_delete_student(const RouteCall& call) const;
  Routed on_audit(const RouteCall& call) const;
  // The LTI tool's (lti_routes.cc).
  Routed on_lti_login(const RouteCall& call) const;
  Routed on_lti_launch(const RouteCall& call) const;
  Routed on_lti_deep_link(const RouteCall& call) const;
  Routed on_lti_jwks(const RouteCall& call) const;

  // Checks a grade request, then grades it (finish_grade), or leaves that to Routed::rest.
  // `pool`: the pool whose member `entry` is (API.md §15), recorded as the grading's problem.
  Routed answer_grade(const std::shared_ptr<const CatalogSnapshot>& snapshot,
                      const CatalogSnapshot::Entry& entry, const Principal& who,
                      const Request& request, const ProblemPool* pool = nullptr) const;
  Routed finish_grade(GradeJob& job, const Request& request) const;
  Graded counted_grading(const Problem& problem, const Submission& submission) const;
  Routed answer_passback(bool retry, const std::string& id, const Request& request) const;
  Routed answer_put(std::string_view id, const Request& request) const;
  Routed answer_delete(std::string_view id, const Request& request) const;
  Routed answer_status(const Request& request) const;
  // The record's checks before grading (Idempotency-Key, attempt limits): an answer when the
  // grading must not run. A key used before is looked up first when `replay_first`, else
  // only when the limit would refuse (a replay is never refused; the commit finds the rest).
  std::optional<Response> check_before_grading(std::string_view problem, const Request& request,
                                               const std::optional<std::string>& student,
                                               const GraderIdentity& identity,
                                               std::optional<store::IdempotencyTag>& tag,
                                               bool replay_first, store::TimeMs now) const;
  // The attempt limit's 429 (per key, then per student and problem), if it refuses.
  std::optional<Response> attempt_limit_refusal(std::string_view problem, const Request& request,
                                                const std::optional<std::string>& student,
                                                const GraderIdentity& identity,
                                                store::TimeMs now) const;
  Routed answer_validate(const Request& request) const;
  // The student a problem is shown to and graded for (student_view.cc): the student token's,
  // else the one named (the grading body's `student`, ?student=).
  static std::optional<std::string> viewer(const Principal& who,
                                           const std::optional<std::string>& named);
  // The problem a student is given of `call`'s problem or pool: its entry, or, for a pool
  // without a student, the 400 that asks for one.
  Result<const CatalogSnapshot::Entry*> given_problem(
      const RouteCall& call, const std::optional<std::string>& student) const;
  // The problem of `entry` as `student` sees it, with the server's variant secret
  // (CatalogSnapshot::for_student).
  Result<ProblemView> student_view(const CatalogSnapshot& snapshot,
                                   const CatalogSnapshot::Entry& entry,
                                   const std::optional<std::string>& student) const;
  Routed answer_solve(const Request& request) const;

  const Service& service_;
  const RouterScope scope_;
  std::unique_ptr<Metrics> own_metrics_;  // when the service has none
  Metrics* metrics_;
};

}  // namespace headgrader::server

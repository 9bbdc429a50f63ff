// The service's routes (API.md §5, §7, §9) as a function from a parsed request to a response:
// no sockets, so every route and every error status is unit-testable. It reads the service's
// parts (service.h): each request takes the problems' current snapshot once and keeps it.
// Failures of any kind come back as JSON responses.
// Thread-safety: route() may run on any thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "error_response.h"
#include "headgrader/problem.h"
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
};

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

class Router {
 public:
  // Part 1: these problems, open grading, no keys (tests, and `--store none` alike).
  explicit Router(const ProblemSet& problems);
  // `service` and what it points to must outlive the router.
  explicit Router(const Service& service);

  Routed route(const Request& request) const;

  // The submission record's store; null with --store none.
  store::SubmissionStore* store() const { return service_.records.store; }

  // Whether route(request) would be a grading that takes long (limits::kLongGradingCost):
  // the server runs those off the threads that read and write. Never throws.
  bool grades_long(const Request& request) const;

 private:
  Routed route_guarded(const Request& request) const;
  Routed route_unguarded(const Request& request) const;
  Routed answer_grade(const CatalogSnapshot::Entry& entry, const Principal& who,
                      const Request& request) const;
  Routed answer_check_steps(const CatalogSnapshot::Entry& entry, const Request& request) const;
  Routed answer_passback(bool retry, const std::string& id, const Request& request) const;
  Routed answer_put(std::string_view id, const Request& request) const;
  Routed answer_delete(std::string_view id, const Request& request) const;
  Routed answer_status(const Request& request) const;
  // The record's checks before grading (Idempotency-Key, attempt limits): an answer when the
  // grading must not run.
  std::optional<Response> check_before_grading(std::string_view problem, const Request& request,
                                               const std::optional<std::string>& student,
                                               const GraderIdentity& identity,
                                               std::optional<store::IdempotencyTag>& tag,
                                               store::TimeMs now) const;
  Routed answer_validate(const Request& request) const;

  std::unique_ptr<ProblemCatalog> owned_catalog_;  // the Part 1 constructor's
  Service owned_service_;
  const Service& service_;
};

}  // namespace headgrader::server

// The service's routes (API.md §5) as a pure function from a parsed request to a response:
// no sockets, no clocks, no shared state beyond the immutable ProblemSet, so every route and
// every error status is unit-testable. Failures of any kind come back as JSON responses.
// Thread-safety: a Router is immutable after construction; route() may run on any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "error_response.h"
#include "headgrader/problem.h"

namespace headgrader::server {

class LtiService;

// A response and what the access log wants to know about it.
struct Routed {
  Response response;
  std::string problem;         // id of the known problem the request named, else empty
  std::optional<bool> passed;  // the grade's `passed`, when a grading ran
};

// The answer to HEAD: the same headers, Content-Length that of the body a GET would get,
// and no body (RFC 9110 §9.3.2), errors included.
Response headers_only(Response response);

// Media type of a Content-Type value is application/json (case-insensitive), parameters
// such as "; charset=utf-8" allowed.
bool is_json_content_type(std::string_view value);

class Router {
 public:
  // `problems` must outlive the router. The GET answers are rendered once, here. With `lti`
  // (--lti), its routes are answered too and student tokens may grade (API.md §11).
  explicit Router(const ProblemSet& problems, LtiService* lti = nullptr);

  Routed route(const Request& request) const;

  // Whether route(request) would be a grading that takes long (limits::kLongGradingStrings):
  // the server runs those off the threads that read and write. Never throws.
  bool grades_long(const Request& request) const;

 private:
  struct Rendered {
    const Problem* problem;
    std::string json;  // problem_to_json, without `reference`
  };

  Routed route_guarded(const Request& request) const;
  Routed route_unguarded(const Request& request) const;
  Routed answer_grade(const Problem& problem, const Request& request) const;
  const Rendered* find(std::string_view id) const;

  const ProblemSet& problems_;
  std::string list_json_;           // GET /v1/problems
  std::vector<Rendered> rendered_;  // ascending id, as problems_.problems()
  std::string known_ids_;           // "a, b, c" for the 404 message
  LtiService* const lti_;           // null without --lti
};

}  // namespace headgrader::server

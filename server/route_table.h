// The service's paths and methods (API.md §5, §7–§11): which route a request target names,
// and what each route allows. Pure functions, no state; the router (router.h) answers them.
#pragma once

#include <string>
#include <string_view>

#include "error_response.h"

namespace headgrader::server {

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
  kPage,            // the student page and its files (API.md §10; server/static_files.h)
  kCheckSteps,      // POST /v1/problems/{id}/check-steps (API.md §10)
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

// Every route, for the 404 of an unknown path.
inline constexpr std::string_view kRouteList =
    "GET /v1/problems, GET /v1/problems/{id}, POST /v1/problems/{id}/grade, "
    "POST /v1/problems/{id}/check-steps, GET /healthz, the student page at GET / "
    "(described at GET /v1/openapi.json; and, with a staff key, GET /v1/problems/status, "
    "POST /v1/problems/validate, PUT and DELETE /v1/problems/{id}, GET /v1/submissions, "
    "GET /v1/submissions.csv, GET /v1/submissions/{id}, GET /v1/problems/{id}/stats, "
    "POST /v1/problems/{id}/regrade, GET /v1/passback, POST /v1/passback/{id}/retry)";

// The path of a request target, without its query. RFC 9112 §3.2.2: a server must accept
// the absolute form ("http://host/healthz") too; its path is what follows the authority.
std::string_view request_path(std::string_view target);

// What follows the '?' of a target, else empty.
std::string_view request_query(std::string_view target);

// Which route a path names (the query, if any, already cut off). Each segment is decoded on
// its own (RFC 3986), so an encoded '/' ("%2F") stays inside its segment; a broken escape is
// kBadEncoding.
Match match_path(std::string_view path);

// The methods each route answers (HEAD wherever GET is): Allow's text ("GET, HEAD"), and
// whether one is among them. PUT and DELETE of a problem exist only with --keys (`staff`):
// without, the server is Part 1's, where they are 405 (docs/course-staff.md).
std::string allowed_methods(Route route, bool staff);
bool is_allowed(Route route, http::verb method, bool staff);
// The same for a 405's message: HEAD left out (it goes with GET), the last after "or"
// ("GET, PUT or DELETE").
std::string methods_to_use(Route route, bool staff);

// The staff routes of the submission record (§8).
bool is_record_route(Route route);

}  // namespace headgrader::server

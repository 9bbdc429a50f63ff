// The service's routes (API.md §5, §7–§11) as one table: each route is one row, with its path
// pattern, the methods it answers, who may call each, whether its path names a problem, and
// the handler of each method. Matching, the 404's list of routes, the 405 and its Allow, the
// credential decision (router.cc), the LTI routes and the check against docs/openapi.json
// (tests/server/route_table_test.cc) all read it. Adding a route is one row and its handler
// (CONTRIBUTING.md, "Adding a route").
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "auth.h"
#include "error_response.h"
#include "problem_catalog.h"

namespace headgrader::server {

class Router;
struct Routed;
struct RouteRow;

// Who may call a method of a route (API.md §7).
enum class Access {
  kAnyone,  // no credential is read
  kGrader,  // as grading is: open, or a key or student token as --grading-access says
  kStaff,   // a staff key; without --keys, 403 staff_disabled whatever is sent
};

// What a handler gets once the path, the problem, the method and the credentials are checked.
struct RouteCall {
  const Request& request;
  const RouteRow& row;
  // The pattern's parameter, percent-decoded; for a file of the page, the path as it came;
  // else empty.
  std::string id;
  // One snapshot for the whole request: a reload meanwhile does not change what it sees.
  std::shared_ptr<const CatalogSnapshot> snapshot;
  // The named problem, when the row names one; or, when the id is a pool's (API.md §15), the
  // pool, with `entry` null: each handler of a row that names a problem takes either.
  const CatalogSnapshot::Entry* entry = nullptr;
  const ProblemPool* pool = nullptr;
  Principal who;  // nobody for Access::kAnyone
};

// A handler answers its route on the calling thread, or hands long work back in Routed::rest.
using RouteHandler = Routed (Router::*)(const RouteCall&) const;

struct RouteMethod {
  http::verb verb;
  Access access = Access::kAnyone;
  RouteHandler handler = nullptr;
  // Exists only with --keys: without, the server is Part 1's, where PUT and DELETE of a
  // problem are 405 (docs/course-staff.md).
  bool needs_keys = false;
  // A PUT that may create the problem its path names: an unknown id is not a 404.
  bool creates_problem = false;
};

struct RouteRow {
  // Segments: fixed text, "{name}" for one non-empty segment (percent-decoded: the parameter),
  // or a last "*" for whatever follows, however many segments.
  std::string_view pattern;
  // In the order Allow names them; HEAD wherever GET is, with GET's handler (the session
  // sends the head alone).
  std::vector<RouteMethod> methods;
  // What the path names, checked before the method: a problem (the parameter is a problem id:
  // 404 unless it is served) or a file of the student page (404 unless it is one), whose
  // paths name nothing that exists otherwise, so that "use POST" sends nobody nowhere.
  enum class Names { kNothing, kProblem, kPageFile };
  Names names = Names::kNothing;
  bool needs_lti = false;  // exists only with --lti: a 404 without
  // Described in docs/openapi.json: the student page's own routes and the LMS's deep-link
  // return are not part of the API a client is generated from.
  bool documented = true;
};

// Every route, most specific first: a path takes the first row it matches ("status" before
// "{id}").
std::span<const RouteRow> route_table();
// The patterns of route_table(), in its order (headgrader_http_requests_total's routes).
std::vector<std::string_view> route_patterns();

// The path of a request target, without its query. RFC 9112 §3.2.2: a server must accept
// the absolute form ("http://host/healthz") too; its path is what follows the authority.
std::string_view request_path(std::string_view target);

// What follows the '?' of a target, else empty.
std::string_view request_query(std::string_view target);

struct Match {
  const RouteRow* row = nullptr;  // null: no route has this path
  bool bad_encoding = false;      // a broken escape in the path
  std::string id;
};

// Which row a path names (the query, if any, already cut off), among the rows that exist with
// or without --lti. Each segment is decoded on its own (RFC 3986), so an encoded '/' ("%2F")
// stays inside its segment.
Match match_path(std::string_view path, bool with_lti);

// The method of `row` that answers `verb`, given --keys; null when none does (405).
const RouteMethod* find_method(const RouteRow& row, http::verb verb, bool staff);
// Whether any method of the row needs a staff key.
bool is_staff_route(const RouteRow& row);

// Allow's text ("GET, HEAD").
std::string allowed_methods(const RouteRow& row, bool staff);
// The same for a 405's message: HEAD left out (it goes with GET), the last after "or"
// ("GET, PUT or DELETE").
std::string methods_to_use(const RouteRow& row, bool staff);

// The routes a 404 lists: those anyone or a grader may call, then, "with a staff key", the
// staff's ("GET /healthz, POST /v1/problems/{id}/grade, …"); the LTI routes only with --lti.
std::string route_list(bool with_lti);

}  // namespace headgrader::server

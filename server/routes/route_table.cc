#include "route_table.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "common/url_encoding.h"
#include "router.h"

namespace headgrader::server {
namespace {

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
           return a == std::tolower(static_cast<unsigned char>(b));
         });
}

// GET and HEAD, answered by one handler.
std::vector<RouteMethod> read(Access access, RouteHandler handler) {
  return {{http::verb::get, access, handler}, {http::verb::head, access, handler}};
}

std::vector<RouteMethod> post(Access access, RouteHandler handler) {
  return {{http::verb::post, access, handler}};
}

bool answers(const RouteMethod& method, bool staff) { return staff || !method.needs_keys; }

// The names of the methods `row` answers, in the table's order; HEAD only `with_head`.
std::vector<std::string_view> method_names(const RouteRow& row, bool staff, bool with_head) {
  std::vector<std::string_view> names;
  for (const RouteMethod& m : row.methods) {
    if (answers(m, staff) && (with_head || m.verb != http::verb::head)) {
      names.emplace_back(http::to_string(m.verb));
    }
  }
  return names;
}

// "A, B<last>C".
std::string join(const std::vector<std::string_view>& names, std::string_view last) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 < names.size() ? ", " : last;
    text += names[i];
  }
  return text;
}

// The segments of `text` after its leading '/'.
std::vector<std::string_view> split(std::string_view text) {
  std::vector<std::string_view> parts;
  for (std::string_view rest = text.substr(1);;) {
    const std::size_t slash = rest.find('/');
    parts.push_back(rest.substr(0, slash));
    if (slash == std::string_view::npos) return parts;
    rest.remove_prefix(slash + 1);
  }
}

bool is_parameter(std::string_view segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

// Whether the decoded `segments` fit `pattern`; its parameter, if any, into `id`. A last "*"
// takes one segment or more, empty included: "/static/" is the page's, "/static" nothing.
bool fits(std::string_view pattern, const std::vector<std::string>& segments, std::string& id) {
  const std::vector<std::string_view> expected = split(pattern);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (i >= segments.size()) return false;
    if (expected[i] == "*" && i + 1 == expected.size()) return true;
    if (is_parameter(expected[i])) {
      if (segments[i].empty()) return false;
      id = segments[i];
    } else if (expected[i] != segments[i]) {
      return false;
    }
  }
  return expected.size() == segments.size();
}

}  // namespace

std::span<const RouteRow> route_table() {
  using R = Router;
  constexpr Access kAnyone = Access::kAnyone, kGrader = Access::kGrader, kStaff = Access::kStaff;
  constexpr RouteRow::Names kProblem = RouteRow::Names::kProblem,
                            kPageFile = RouteRow::Names::kPageFile;
  static const std::vector<RouteRow> kRows = {
      {.pattern = "/healthz", .methods = read(kAnyone, &R::on_health)},
      // Readiness (API.md §17): keyless as /healthz is, for balancers and probes.
      {.pattern = "/readyz", .methods = read(kAnyone, &R::on_ready)},
      // Prometheus' scrape (API.md §17): a staff key here; keyless only on the listener of
      // --metrics-address.
      {.pattern = "/metrics", .methods = read(kStaff, &R::on_metrics)},
      {.pattern = "/v1/openapi.json", .methods = read(kAnyone, &R::on_openapi)},
      // The student page and its files (API.md §10; server/http/static_files.h).
      {.pattern = "/",
       .methods = read(kAnyone, &R::on_page),
       .names = kPageFile,
       .documented = false},
      // The staff's page (API.md §16): no key to load it; every call it makes needs one.
      {.pattern = "/staff",
       .methods = read(kAnyone, &R::on_page),
       .names = kPageFile,
       .documented = false},
      {.pattern = "/static/*",
       .methods = read(kAnyone, &R::on_page),
       .names = kPageFile,
       .documented = false},
      {.pattern = "/v1/problems", .methods = read(kAnyone, &R::on_problems)},
      // The §9 routes and the staff page's solve take these three names: no problem with any
      // of those ids can be fetched or replaced.
      {.pattern = "/v1/problems/status", .methods = read(kStaff, &R::on_status)},
      {.pattern = "/v1/problems/validate", .methods = post(kStaff, &R::on_validate)},
      {.pattern = "/v1/problems/solve", .methods = post(kStaff, &R::on_solve)},
      {.pattern = "/v1/problems/{id}",
       .methods = {{http::verb::get, kAnyone, &R::on_problem},
                   {http::verb::head, kAnyone, &R::on_problem},
                   {.verb = http::verb::put,
                    .access = kStaff,
                    .handler = &R::on_put,
                    .needs_keys = true,
                    .creates_problem = true},
                   {.verb = http::verb::delete_,
                    .access = kStaff,
                    .handler = &R::on_delete,
                    .needs_keys = true}},
       .names = kProblem},
      {.pattern = "/v1/problems/{id}/grade",
       .methods = post(kGrader, &R::on_grade),
       .names = kProblem},
      // Checking steps is granted as grading is (the page sends the same credentials to both).
      {.pattern = "/v1/problems/{id}/check-steps",
       .methods = post(kGrader, &R::on_check_steps),
       .names = kProblem,
       .documented = false},
      {.pattern = "/v1/problems/{id}/stats",
       .methods = read(kStaff, &R::on_stats),
       .names = kProblem},
      {.pattern = "/v1/problems/{id}/regrade",
       .methods = post(kStaff, &R::on_regrade),
       .names = kProblem},
      {.pattern = "/v1/problems/{id}/integrity",
       .methods = read(kStaff, &R::on_integrity),
       .names = kProblem},
      {.pattern = "/v1/passback", .methods = read(kStaff, &R::on_passback_list)},
      {.pattern = "/v1/passback/{id}/retry", .methods = post(kStaff, &R::on_passback_retry)},
      {.pattern = "/v1/submissions", .methods = read(kStaff, &R::on_submissions)},
      {.pattern = "/v1/submissions.csv", .methods = read(kStaff, &R::on_submissions_csv)},
      {.pattern = "/v1/submissions/{sid}", .methods = read(kStaff, &R::on_submission)},
      {.pattern = "/v1/students.csv", .methods = read(kStaff, &R::on_students_csv)},
      // A student's data deleted, and the audit of those deletions (API.md §17). The access
      // log shows this path as "/v1/students/{student}" (access_log.h).
      {.pattern = "/v1/students/{student}",
       .methods = {{http::verb::delete_, kStaff, &R::on_delete_student}}},
      {.pattern = "/v1/audit", .methods = read(kStaff, &R::on_audit)},
      // The LTI tool (API.md §11; server/lti_tool/lti_service.h).
      {.pattern = "/lti/login",
       .methods = {{http::verb::get, kAnyone, &R::on_lti_login},
                   {http::verb::head, kAnyone, &R::on_lti_login},
                   {http::verb::post, kAnyone, &R::on_lti_login}},
       .needs_lti = true},
      {.pattern = "/lti/launch", .methods = post(kAnyone, &R::on_lti_launch), .needs_lti = true},
      {.pattern = "/lti/deep-link",
       .methods = post(kAnyone, &R::on_lti_deep_link),
       .needs_lti = true,
       .documented = false},
      {.pattern = "/.well-known/jwks.json",
       .methods = read(kAnyone, &R::on_lti_jwks),
       .needs_lti = true},
  };
  return kRows;
}

std::vector<std::string_view> route_patterns() {
  std::vector<std::string_view> patterns;
  for (const RouteRow& row : route_table()) patterns.push_back(row.pattern);
  return patterns;
}

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

std::string_view request_query(std::string_view target) {
  const std::size_t mark = target.find('?');
  return mark == std::string_view::npos ? std::string_view() : target.substr(mark + 1);
}

Match match_path(std::string_view path, bool with_lti) {
  if (path.empty() || path.front() != '/') return {};
  std::vector<std::string> segments;
  for (const std::string_view raw : split(path)) {
    std::optional<std::string> segment = percent_decode(raw, false);
    if (!segment) return {nullptr, true, {}};
    segments.push_back(std::move(*segment));
  }
  for (const RouteRow& row : route_table()) {
    if (row.needs_lti && !with_lti) continue;
    Match match{&row, false, {}};
    if (fits(row.pattern, segments, match.id)) return match;
  }
  return {};
}

const RouteMethod* find_method(const RouteRow& row, http::verb verb, bool staff) {
  const auto found =
      std::find_if(row.methods.begin(), row.methods.end(),
                   [&](const RouteMethod& m) { return m.verb == verb && answers(m, staff); });
  return found == row.methods.end() ? nullptr : &*found;
}

bool is_staff_route(const RouteRow& row) {
  return std::any_of(row.methods.begin(), row.methods.end(),
                     [](const RouteMethod& m) { return m.access == Access::kStaff; });
}

std::string allowed_methods(const RouteRow& row, bool staff) {
  return join(method_names(row, staff, true), ", ");
}

std::string methods_to_use(const RouteRow& row, bool staff) {
  return join(method_names(row, staff, false), " or ");
}

std::string route_list(bool with_lti) {
  std::vector<std::string> open, staff;
  for (const RouteRow& row : route_table()) {
    if (row.needs_lti && !with_lti) continue;
    std::vector<std::string_view> open_verbs, staff_verbs;
    for (const RouteMethod& m : row.methods) {
      if (m.verb == http::verb::head) continue;
      (m.access == Access::kStaff ? staff_verbs : open_verbs).emplace_back(http::to_string(m.verb));
    }
    const std::string pattern(row.pattern);
    if (!open_verbs.empty()) open.push_back(join(open_verbs, " and ") + " " + pattern);
    if (!staff_verbs.empty()) staff.push_back(join(staff_verbs, " and ") + " " + pattern);
  }
  std::string text;
  for (const std::string& route : open) text += (text.empty() ? "" : ", ") + route;
  text += "; and, with a staff key, ";
  for (std::size_t i = 0; i < staff.size(); ++i) text += (i > 0 ? ", " : "") + staff[i];
  return text;
}

}  // namespace headgrader::server

#include "route_table.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/url_encoding.h"

namespace headgrader::server {
namespace {

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
           return a == std::tolower(static_cast<unsigned char>(b));
         });
}

// A method a route answers; a staff-only one only with --keys (route_table.h).
struct Method {
  http::verb verb;
  bool staff_only = false;
};

constexpr Method kReadMethods[] = {{http::verb::get}, {http::verb::head}};
constexpr Method kPostMethods[] = {{http::verb::post}};
constexpr Method kProblemMethods[] = {
    {http::verb::get}, {http::verb::head}, {http::verb::put, true}, {http::verb::delete_, true}};

// The one table of what each route answers, in the order Allow names them (HEAD wherever GET
// is): the 405 check, the Allow header and the 405's message all read it.
std::span<const Method> methods_of(Route route) {
  switch (route) {
    case Route::kGrade:
    case Route::kCheckSteps:
    case Route::kValidate:
    case Route::kRegrade:
    case Route::kPassbackRetry:
      return kPostMethods;
    case Route::kProblem:
      return kProblemMethods;
    default:
      return kReadMethods;
  }
}

bool answers(const Method& method, bool staff) { return staff || !method.staff_only; }

// The names of the methods `route` answers, in the table's order; HEAD only `with_head`.
std::vector<std::string_view> method_names(Route route, bool staff, bool with_head) {
  std::vector<std::string_view> names;
  for (const Method& m : methods_of(route)) {
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

}  // namespace

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

Match match_path(std::string_view path) {
  if (path.empty() || path.front() != '/') return {};
  std::vector<std::string> segments;
  for (std::string_view rest = path.substr(1);;) {
    const std::size_t slash = rest.find('/');
    std::optional<std::string> segment = percent_decode(rest.substr(0, slash), false);
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

std::string allowed_methods(Route route, bool staff) {
  return join(method_names(route, staff, true), ", ");
}

std::string methods_to_use(Route route, bool staff) {
  return join(method_names(route, staff, false), " or ");
}

bool is_allowed(Route route, http::verb method, bool staff) {
  const std::span<const Method> methods = methods_of(route);
  return std::any_of(methods.begin(), methods.end(),
                     [&](const Method& m) { return m.verb == method && answers(m, staff); });
}

bool is_record_route(Route route) {
  return route == Route::kSubmissions || route == Route::kSubmissionsCsv ||
         route == Route::kSubmission || route == Route::kStats || route == Route::kRegrade;
}

std::string_view request_query(std::string_view target) {
  const std::size_t mark = target.find('?');
  return mark == std::string_view::npos ? std::string_view() : target.substr(mark + 1);
}

}  // namespace headgrader::server

// The HTTP layer without sockets: every route and every error status of API.md §5 through
// the pure Router, the one status table, the error body, the access-log line and the flags.
#include "router.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <variant>

#include "access_log.h"
#include "error_response.h"
#include "headgrader/diagnosis.h"
#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "options.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::bundled_problems;
using testing::kHandoutSolution;

const Router& router() {
  static const Router router(bundled_problems());
  return router;
}

Request make_request(http::verb method, std::string target, std::string body = "",
                     std::string content_type = "application/json") {
  Request request{method, target, 11};
  if (!content_type.empty()) request.set(http::field::content_type, content_type);
  request.body() = std::move(body);
  request.prepare_payload();
  return request;
}

Json body_json(const Routed& routed) { return Json::parse(routed.response.body()); }

std::string expected_grade(const std::string& id, const std::string& body) {
  const Problem& problem = *bundled_problems().find(id);
  const Result<Submission> submission = parse_submission(problem, body);
  EXPECT_TRUE(submission.ok());
  return report_json(problem,
                     grade_with_diagnosis(problem, submission->weights, submission->max_failures));
}

void expect_error(const Routed& routed, http::status status, const std::string& code,
                  const Json& field = nullptr) {
  EXPECT_EQ(routed.response.result(), status) << routed.response.body();
  EXPECT_EQ(routed.response[http::field::content_type], "application/json");
  const Json body = body_json(routed);
  ASSERT_TRUE(body.contains("error")) << body.dump();
  EXPECT_EQ(body["error"]["code"], code);
  EXPECT_TRUE(body["error"]["message"].is_string());
  EXPECT_FALSE(body["error"]["message"].get<std::string>().empty());
  EXPECT_EQ(body["error"]["field"], field);
  EXPECT_EQ(body["error"].size(), 3u);
}

// --- Routes ---------------------------------------------------------------------------------

TEST(Router, ListsEveryProblemWithIdTitleAndSubmit) {
  const Routed routed = router().route(make_request(http::verb::get, "/v1/problems"));
  EXPECT_EQ(routed.response.result(), http::status::ok);
  EXPECT_EQ(routed.response[http::field::content_type], "application/json");
  Json expected = {{"problems", Json::array()}};
  for (const auto& problem : bundled_problems().problems()) {
    expected["problems"].push_back(problem_summary_json(*problem));
  }
  EXPECT_EQ(routed.response.body(), expected.dump());
  EXPECT_GE(body_json(routed)["problems"].size(), 3u);
}

TEST(Router, ServesOneProblemWithoutItsReference) {
  const Routed routed =
      router().route(make_request(http::verb::get, "/v1/problems/consonant-anywhere"));
  EXPECT_EQ(routed.response.result(), http::status::ok);
  const Problem& problem = *bundled_problems().find("consonant-anywhere");
  EXPECT_EQ(routed.response.body(), problem_to_json(problem).dump());
  EXPECT_FALSE(body_json(routed).contains("reference"));
  EXPECT_EQ(body_json(routed)["id"], "consonant-anywhere");
  EXPECT_EQ(routed.problem, "consonant-anywhere");
}

TEST(Router, HealthzAnswersOk) {
  const Routed routed = router().route(make_request(http::verb::get, "/healthz", "", ""));
  EXPECT_EQ(routed.response.result(), http::status::ok);
  EXPECT_EQ(routed.response.body(), R"({"status":"ok"})");
  EXPECT_EQ(routed.response[http::field::content_type], "application/json");
}

TEST(Router, IgnoresTheQueryString) {
  const Routed routed = router().route(make_request(http::verb::get, "/healthz?probe=1"));
  EXPECT_EQ(routed.response.result(), http::status::ok);
}

TEST(Router, AcceptsTheAbsoluteFormOfATarget) {
  // RFC 9112 §3.2.2: a server must accept "GET http://host/path" as well as "GET /path".
  const Routed one = router().route(make_request(http::verb::get, "/v1/problems/first-position"));
  for (const char* target : {"http://localhost:8080/v1/problems/first-position",
                             "HTTPS://grader.example/v1/problems/first-position?x=/y"}) {
    SCOPED_TRACE(target);
    const Routed routed = router().route(make_request(http::verb::get, target));
    EXPECT_EQ(routed.response.result(), http::status::ok);
    EXPECT_EQ(routed.response.body(), one.response.body());
  }
  const Routed graded = router().route(make_request(
      http::verb::post, "http://h/v1/problems/consonant-anywhere/grade", kHandoutSolution));
  EXPECT_EQ(graded.response.body(), expected_grade("consonant-anywhere", kHandoutSolution));
  // No path after the authority is the root: the student page (API.md §10).
  for (const char* target : {"http://h", "http://h?x=/healthz"}) {
    SCOPED_TRACE(target);
    const Routed page = router().route(make_request(http::verb::get, target));
    EXPECT_EQ(page.response.result(), http::status::ok);
    EXPECT_EQ(page.response[http::field::content_type], "text/html; charset=utf-8");
  }
  expect_error(router().route(make_request(http::verb::get, "http:/healthz")),
               http::status::not_found, "not_found");
}

TEST(Router, HeadGetsGetsHeadersWithoutBody) {
  const Routed routed = router().route(make_request(http::verb::head, "/v1/problems", "", ""));
  EXPECT_EQ(routed.response.result(), http::status::ok);
  EXPECT_TRUE(routed.response.body().empty());
  const Routed get = router().route(make_request(http::verb::get, "/v1/problems", "", ""));
  EXPECT_EQ(routed.response[http::field::content_length],
            std::to_string(get.response.body().size()));
}

TEST(Router, HeadGetsAnErrorsHeadersWithoutItsBody) {
  // A body after a HEAD answer would be read as the start of the next answer on the connection.
  for (const char* target : {"/v1/problems/no-such", "/no/such/path", "/v1/problems/x%zz"}) {
    SCOPED_TRACE(target);
    const Routed head = router().route(make_request(http::verb::head, target, "", ""));
    const Routed get = router().route(make_request(http::verb::get, target, "", ""));
    ASSERT_GE(static_cast<int>(get.response.result()), 400);
    EXPECT_EQ(head.response.result(), get.response.result());
    EXPECT_TRUE(head.response.body().empty());
    EXPECT_EQ(head.response[http::field::content_length],
              std::to_string(get.response.body().size()));
    EXPECT_EQ(head.response[http::field::content_type], "application/json");
  }
  const Routed not_allowed = router().route(
      make_request(http::verb::head, "/v1/problems/consonant-anywhere/grade", "", ""));
  EXPECT_EQ(not_allowed.response.result(), http::status::method_not_allowed);
  EXPECT_TRUE(not_allowed.response.body().empty());
  EXPECT_EQ(
      not_allowed.response[http::field::content_length],
      std::to_string(std::string_view(R"({"error":{"code":"method_not_allowed","message":)"
                                      R"("HEAD is not allowed here; use POST","field":null}})")
                         .size()));
}

TEST(Router, DecodesPercentEncodedPaths) {
  // RFC 3986 §2.1: an encoded unreserved character is the same URL.
  const Routed plain = router().route(make_request(http::verb::get, "/v1/problems/first-position"));
  for (const char* target : {"/v1/problems/first%2Dposition", "/v1/problems/first%2dposition",
                             "/%76%31/problems/%66irst-position"}) {
    SCOPED_TRACE(target);
    const Routed routed = router().route(make_request(http::verb::get, target));
    EXPECT_EQ(routed.response.result(), http::status::ok);
    EXPECT_EQ(routed.response.body(), plain.response.body());
    EXPECT_EQ(routed.problem, "first-position");
  }
  const Routed graded = router().route(
      make_request(http::verb::post, "/v1/problems/consonant%2Danywhere/grade", kHandoutSolution));
  EXPECT_EQ(graded.response.body(), expected_grade("consonant-anywhere", kHandoutSolution));
  EXPECT_EQ(router().route(make_request(http::verb::get, "/health%7A")).response.result(),
            http::status::ok);
}

TEST(Router, AnEncodedSlashStaysInsideItsSegment) {
  expect_error(router().route(make_request(http::verb::get, "/v1/problems%2Fconsonant-anywhere")),
               http::status::not_found, "not_found");
  expect_error(router().route(make_request(http::verb::get, "/v1/problems/a%2Fgrade")),
               http::status::not_found, "not_found");
}

TEST(Router, ABrokenPercentEncodingIs400) {
  for (const char* target : {"/v1/problems/first%2", "/v1/problems/first%", "/v1/problems/%zz",
                             "/v1/problems/%G0/grade", "/healthz%"}) {
    SCOPED_TRACE(target);
    const Routed routed = router().route(make_request(http::verb::get, target));
    expect_error(routed, http::status::bad_request, "bad_request");
    EXPECT_NE(routed.response.body().find("two hexadecimal digits"), std::string::npos);
  }
}

TEST(Router, GradesTheHandoutSolutionExactlyAsTheEngine) {
  const Routed routed = router().route(
      make_request(http::verb::post, "/v1/problems/consonant-anywhere/grade", kHandoutSolution));
  ASSERT_EQ(routed.response.result(), http::status::ok) << routed.response.body();
  EXPECT_EQ(routed.response.body(), expected_grade("consonant-anywhere", kHandoutSolution));
  EXPECT_EQ(body_json(routed)["passed"], true);
  EXPECT_EQ(routed.problem, "consonant-anywhere");
  EXPECT_EQ(routed.passed, std::optional<bool>(true));
}

TEST(Router, GradesAFailingSubmissionWithItsFailures) {
  const std::string body = R"({"W_q": [[1, 1]], "W_k": [[0, 1]], "W_V": [[1, 0], [0, 1]],
                               "max_failures": 2, "student": "ada"})";
  const Routed routed =
      router().route(make_request(http::verb::post, "/v1/problems/consonant-anywhere/grade", body));
  ASSERT_EQ(routed.response.result(), http::status::ok) << routed.response.body();
  EXPECT_EQ(routed.response.body(), expected_grade("consonant-anywhere", body));
  EXPECT_EQ(body_json(routed)["passed"], false);
  EXPECT_EQ(body_json(routed)["failures"].size(), 2u);
  EXPECT_EQ(routed.passed, std::optional<bool>(false));
}

TEST(Router, AcceptsJsonContentTypeWithParametersInAnyCase) {
  const Routed routed =
      router().route(make_request(http::verb::post, "/v1/problems/consonant-anywhere/grade",
                                  kHandoutSolution, "Application/JSON ; charset=utf-8"));
  EXPECT_EQ(routed.response.result(), http::status::ok) << routed.response.body();
}

TEST(Router, KeepsTheConnectionAsTheRequestAsks) {
  Request request = make_request(http::verb::get, "/healthz");
  EXPECT_TRUE(router().route(request).response.keep_alive());
  request.keep_alive(false);
  EXPECT_FALSE(router().route(request).response.keep_alive());
  request.version(10);
  request.keep_alive(false);
  const Routed old = router().route(request);
  EXPECT_EQ(old.response.version(), 10u);
  EXPECT_FALSE(old.response.keep_alive());
}

// --- Errors ---------------------------------------------------------------------------------

TEST(Router, UnknownPathIs404) {
  for (const char* target :
       {"/index.html", "/static/", "/v1", "/v1/problems/", "/v1/problems/a/b", "/healthz/",
        "/v1/problems/consonant-anywhere/grade/x", "/v2/problems"}) {
    SCOPED_TRACE(target);
    expect_error(router().route(make_request(http::verb::get, target)), http::status::not_found,
                 "not_found");
  }
}

TEST(Router, UnknownProblemIs404OnEveryProblemRoute) {
  expect_error(router().route(make_request(http::verb::get, "/v1/problems/no-such")),
               http::status::not_found, "not_found");
  expect_error(router().route(
                   make_request(http::verb::post, "/v1/problems/no-such/grade", kHandoutSolution)),
               http::status::not_found, "not_found");
}

TEST(Router, UnknownProblemIs404WhateverTheMethod) {
  // Its paths name nothing that exists, so "use POST" would send the student nowhere.
  for (const http::verb method : {http::verb::get, http::verb::delete_, http::verb::put}) {
    SCOPED_TRACE(std::string(http::to_string(method)));
    for (const char* target : {"/v1/problems/no-such/grade", "/v1/problems/no-such"}) {
      const Routed routed = router().route(make_request(method, target));
      expect_error(routed, http::status::not_found, "not_found");
      EXPECT_EQ(routed.response.count(http::field::allow), 0u);
      EXPECT_NE(routed.response.body().find("consonant-anywhere, consonant-proportion"),
                std::string::npos);
    }
  }
}

TEST(Router, WrongMethodOnAKnownPathIs405WithAllow) {
  struct Case {
    http::verb method;
    const char* target;
    const char* allow;
    const char* message;
  };
  for (const Case& c :
       {Case{http::verb::post, "/v1/problems", "GET, HEAD", "POST is not allowed here; use GET"},
        Case{http::verb::delete_, "/v1/problems/consonant-anywhere", "GET, HEAD",
             "DELETE is not allowed here; use GET"},
        Case{http::verb::put, "/healthz", "GET, HEAD", "PUT is not allowed here; use GET"},
        Case{http::verb::get, "/v1/problems/consonant-anywhere/grade", "POST",
             "GET is not allowed here; use POST"}}) {
    SCOPED_TRACE(c.target);
    const Routed routed = router().route(make_request(c.method, c.target));
    expect_error(routed, http::status::method_not_allowed, "method_not_allowed");
    EXPECT_EQ(routed.response[http::field::allow], c.allow);
    EXPECT_EQ(body_json(routed)["error"]["message"], c.message);
  }
}

TEST(Router, PostWithoutJsonContentTypeIs415) {
  for (const char* type :
       {"", "text/plain", "application/jsonx", "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x"}) {
    SCOPED_TRACE(type);
    expect_error(
        router().route(make_request(http::verb::post, "/v1/problems/consonant-anywhere/grade",
                                    kHandoutSolution, type)),
        http::status::unsupported_media_type, "unsupported_media_type");
  }
}

TEST(Router, The415MessageSaysWhichContentTypeCame) {
  const auto message = [](const std::string& type) {
    return body_json(router().route(make_request(http::verb::post,
                                                 "/v1/problems/consonant-anywhere/grade",
                                                 kHandoutSolution, type)))["error"]["message"]
        .get<std::string>();
  };
  const std::string must = "the body must be JSON, sent with Content-Type: application/json; ";
  EXPECT_EQ(message(""), must + "the request has no Content-Type");
  // What curl -d sends.
  EXPECT_EQ(message("application/x-www-form-urlencoded"),
            must + "the request's Content-Type is \"application/x-www-form-urlencoded\"");
  // Bytes that are not printable ASCII as '?', a long value cut at 100 bytes.
  EXPECT_EQ(message("text/plain; x=\xe9"),
            must + "the request's Content-Type is \"text/plain; x=?\"");
  EXPECT_EQ(message("text/" + std::string(200, 'a')),
            must + "the request's Content-Type is \"text/" + std::string(95, 'a') + "…\"");
}

TEST(Router, MalformedBodiesAre400WithTheEnginesError) {
  struct Case {
    const char* body;
    const char* code;
    Json field;
  };
  const Case cases[] = {
      {"{", "invalid_json", nullptr},
      {"", "invalid_json", nullptr},
      {"[1, 2]", "not_an_object", nullptr},
      {R"({"W_q": [[1, 1]], "W_k": [[0, 5]]})", "missing_field", "W_V"},
      {R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "W_x": 1})", "unknown_field",
       "W_x"},
      {R"({"W_q": [[1, 1]], "W_Q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
       "duplicate_field", "W_Q"},
      {R"({"W_q": "x", "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})", "wrong_type", "W_q"},
      {R"({"W_Q": [[1, 1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})", "wrong_shape", "W_Q"},
      {R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "max_failures": 101})",
       "out_of_range", "max_failures"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body);
    expect_error(router().route(make_request(http::verb::post,
                                             "/v1/problems/consonant-anywhere/grade", c.body)),
                 http::status::bad_request, c.code, c.field);
  }
}

TEST(Router, DeepNestingIs400TooDeep) {
  const std::string deep = std::string(1000, '[') + std::string(1000, ']');
  expect_error(
      router().route(make_request(http::verb::post, "/v1/problems/consonant-anywhere/grade",
                                  R"({"W_q": )" + deep + "}")),
      http::status::bad_request, "too_deep", "W_q");
}

// Every error code, written from API.md (§5, §7–§11) and docs/http.md's table of codes, not
// from headgrader/error_code.h: its name in the error body and its status. In the enum's
// order, so that a code added there and not here fails the test.
struct ErrorCodeCase {
  ErrorCode code;
  const char* name;
  http::status status;
};
constexpr ErrorCodeCase kEveryErrorCode[] = {
    {ErrorCode::kInvalidJson, "invalid_json", http::status::bad_request},
    {ErrorCode::kTooDeep, "too_deep", http::status::bad_request},
    {ErrorCode::kNotAnObject, "not_an_object", http::status::bad_request},
    {ErrorCode::kMissingField, "missing_field", http::status::bad_request},
    {ErrorCode::kUnknownField, "unknown_field", http::status::bad_request},
    {ErrorCode::kDuplicateField, "duplicate_field", http::status::bad_request},
    {ErrorCode::kWrongType, "wrong_type", http::status::bad_request},
    {ErrorCode::kWrongShape, "wrong_shape", http::status::bad_request},
    {ErrorCode::kOutOfRange, "out_of_range", http::status::bad_request},
    {ErrorCode::kNotFound, "not_found", http::status::not_found},
    {ErrorCode::kMethodNotAllowed, "method_not_allowed", http::status::method_not_allowed},
    {ErrorCode::kBodyTooLarge, "body_too_large", http::status::payload_too_large},
    {ErrorCode::kUnsupportedMediaType, "unsupported_media_type",
     http::status::unsupported_media_type},
    {ErrorCode::kHeaderTooLarge, "header_too_large", http::status::request_header_fields_too_large},
    {ErrorCode::kBadRequest, "bad_request", http::status::bad_request},
    {ErrorCode::kTooManyConnections, "too_many_connections", http::status::service_unavailable},
    {ErrorCode::kUnauthorized, "unauthorized", http::status::unauthorized},
    {ErrorCode::kForbidden, "forbidden", http::status::forbidden},
    {ErrorCode::kStaffDisabled, "staff_disabled", http::status::forbidden},
    {ErrorCode::kStoreUnavailable, "store_unavailable", http::status::service_unavailable},
    {ErrorCode::kIdempotencyConflict, "idempotency_conflict", http::status::conflict},
    {ErrorCode::kRateLimited, "rate_limited", http::status::too_many_requests},
    {ErrorCode::kInvalidProblem, "invalid_problem", http::status::unprocessable_entity},
    {ErrorCode::kProblemsReadOnly, "problems_read_only", http::status::conflict},
    {ErrorCode::kInternalError, "internal_error", http::status::internal_server_error},
    // Never meant for a client (startup, the command line, our calls to a platform): 500, as
    // any code the table did not know was before it was a switch.
    {ErrorCode::kUsage, "usage", http::status::internal_server_error},
    {ErrorCode::kKeysFile, "keys_file", http::status::internal_server_error},
    {ErrorCode::kListenFailed, "listen_failed", http::status::internal_server_error},
    {ErrorCode::kTlsConfig, "tls_config", http::status::internal_server_error},
    {ErrorCode::kInvalidLtiConfig, "invalid_lti_config", http::status::internal_server_error},
    {ErrorCode::kInvalidKey, "invalid_key", http::status::internal_server_error},
    {ErrorCode::kFetchFailed, "fetch_failed", http::status::internal_server_error},
    {ErrorCode::kTokenRefused, "token_refused", http::status::internal_server_error},
};

TEST(ErrorResponse, EveryCodeHasItsOwnNameAndItsStatusInTheAnswer) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < std::size(kEveryErrorCode); ++i) {
    const ErrorCodeCase& c = kEveryErrorCode[i];
    SCOPED_TRACE(c.name);
    // Listed once each, in the enum's order: the list covers every enumerator up to its last.
    EXPECT_EQ(static_cast<std::size_t>(c.code), i);
    EXPECT_TRUE(names.insert(c.name).second) << "a second code named " << c.name;
    EXPECT_EQ(code_name(c.code), c.name);
    EXPECT_EQ(status_for(c.code), c.status);
    const Response response = error_response({c.code, "the message", ""}, 11, true);
    EXPECT_EQ(response.result(), c.status);
    EXPECT_EQ(response.body(), std::string(R"({"error":{"code":")") + c.name +
                                   R"(","message":"the message","field":null}})");
    EXPECT_EQ(response.count(http::field::www_authenticate) == 1,
              c.code == ErrorCode::kUnauthorized);
  }
  // Nothing past the last: a value after it is no code, so its name is the fallback's.
  EXPECT_EQ(code_name(static_cast<ErrorCode>(std::size(kEveryErrorCode))), "internal_error");
  EXPECT_EQ(status_for(static_cast<ErrorCode>(std::size(kEveryErrorCode))),
            http::status::internal_server_error);
}

TEST(ErrorResponse, BodyHasCodeMessageAndFieldOrNull) {
  EXPECT_EQ(
      error_body({ErrorCode::kWrongShape, "W_q must have 2 columns", "W_q"}),
      R"({"error":{"code":"wrong_shape","message":"W_q must have 2 columns","field":"W_q"}})");
  EXPECT_EQ(error_body({ErrorCode::kNotFound, "no such path", ""}),
            R"({"error":{"code":"not_found","message":"no such path","field":null}})");
}

TEST(ContentType, IsJsonOnlyForApplicationJson) {
  EXPECT_TRUE(is_json_content_type("application/json"));
  EXPECT_TRUE(is_json_content_type("application/json; charset=utf-8"));
  EXPECT_TRUE(is_json_content_type("APPLICATION/Json;charset=UTF-8"));
  EXPECT_TRUE(is_json_content_type(" application/json "));
  EXPECT_FALSE(is_json_content_type(""));
  EXPECT_FALSE(is_json_content_type("application/jso"));
  EXPECT_FALSE(is_json_content_type("application/json-seq"));
  EXPECT_FALSE(is_json_content_type("text/json"));
  EXPECT_FALSE(is_json_content_type("application/problem+json"));
}

// --- Access log -------------------------------------------------------------------------------

TEST(AccessLog, IsOneJsonLineWithTheAgreedFields) {
  AccessLogEntry entry;
  entry.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1714564800123));
  entry.method = "POST";
  entry.path = "/v1/problems/consonant-anywhere/grade";
  entry.status = 200;
  entry.latency_ms = 0.4567;
  entry.problem = "consonant-anywhere";
  entry.passed = true;
  EXPECT_EQ(format_access_log(entry),
            R"({"time":"2024-05-01T12:00:00.123Z","method":"POST",)"
            R"("path":"/v1/problems/consonant-anywhere/grade","status":200,"latency_ms":0.457,)"
            R"("problem":"consonant-anywhere","passed":true})");
}

TEST(AccessLog, UnknownPartsAreNullAndBadBytesAreReplaced) {
  AccessLogEntry entry;
  entry.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(5));
  entry.path = "/\xff";
  entry.status = 400;
  const Json line = Json::parse(format_access_log(entry));
  EXPECT_EQ(line["time"], "1970-01-01T00:00:00.005Z");
  EXPECT_TRUE(line["method"].is_null());
  EXPECT_EQ(line["path"], "/\xEF\xBF\xBD");
  EXPECT_TRUE(line["problem"].is_null());
  EXPECT_TRUE(line["passed"].is_null());
}

TEST(AccessLog, TimesAreUtcCalendarDatesWithMilliseconds) {
  using namespace std::chrono;
  const auto at = [](sys_days day, milliseconds since_midnight) {
    AccessLogEntry entry;
    entry.time = system_clock::time_point(day + since_midnight);
    return Json::parse(format_access_log(entry))["time"].get<std::string>();
  };
  EXPECT_EQ(at(2024y / February / 29, 86'399'999ms), "2024-02-29T23:59:59.999Z");
  EXPECT_EQ(at(2000y / March / 1, 0ms), "2000-03-01T00:00:00.000Z");
  EXPECT_EQ(at(2026y / December / 31, hours(13) + minutes(7) + seconds(5) + 40ms),
            "2026-12-31T13:07:05.040Z");
  EXPECT_EQ(at(1999y / January / 9, 3'600'000ms), "1999-01-09T01:00:00.000Z");
}

TEST(AccessLog, APathCutInsideACharacterEndsInAReplacement) {
  // "é" is two bytes; the cut at kMaxLoggedPathBytes leaves only its first.
  const std::string path = std::string(limits::kMaxLoggedPathBytes - 1, 'a') + "é";
  AccessLogEntry entry;
  entry.path = path;
  const Json line = Json::parse(format_access_log(entry));
  EXPECT_EQ(line["path"], std::string(limits::kMaxLoggedPathBytes - 1, 'a') + "\xEF\xBF\xBD");
}

// --- Flags ------------------------------------------------------------------------------------

Result<ServerOptions> parse(std::initializer_list<std::string_view> args) {
  return parse_options(std::span<const std::string_view>(args.begin(), args.size()));
}

TEST(ServerOptions, DefaultsFollowTheContract) {
  const Result<ServerOptions> options = parse({});
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->address, "0.0.0.0");
  EXPECT_EQ(options->port, 8080);
  EXPECT_TRUE(options->problems.empty());
  EXPECT_EQ(options->threads, 0u);
  EXPECT_GE(thread_count(0), 1u);
  EXPECT_EQ(thread_count(3), 3u);
}

TEST(ServerOptions, ReadsEveryFlagInBothSpellings) {
  const Result<ServerOptions> options =
      parse({"--problems", "p", "--address=127.0.0.1", "--port", "0", "--threads=2"});
  ASSERT_TRUE(options.ok()) << options.error().message;
  EXPECT_EQ(options->problems, "p");
  EXPECT_EQ(options->address, "127.0.0.1");
  EXPECT_EQ(options->port, 0);
  EXPECT_EQ(options->threads, 2u);
  EXPECT_TRUE(parse({"--help"})->help);
  EXPECT_TRUE(parse({"--healthcheck", "--port", "9"})->healthcheck);
  EXPECT_TRUE(parse({"healthcheck"})->healthcheck);
}

TEST(ServerOptions, RefusesBadValuesNamingTheFlag) {
  EXPECT_EQ(parse({"--port", "65536"}).error().message,
            "--port must be a number from 0 to 65535; it is \"65536\"");
  EXPECT_EQ(parse({"--port", "-1"}).error().message,
            "--port must be a number from 0 to 65535; it is \"-1\"");
  EXPECT_EQ(parse({"--threads", "0"}).error().message,
            "--threads must be a number from 1 to 256; it is \"0\"");
  EXPECT_EQ(parse({"--port"}).error().message, "--port needs a value");
  for (const std::string_view address : {"localhost", "999.1.1.1", "1.2.3", "::g"}) {
    const Result<ServerOptions> refused = parse({"--address", address});
    ASSERT_FALSE(refused.ok()) << address;
    EXPECT_EQ(refused.error().message,
              "--address must be an IP address such as 0.0.0.0 (every interface), 127.0.0.1 "
              "(this machine only) or ::; it is \"" +
                  std::string(address) + "\"");
  }
  EXPECT_TRUE(parse({"--address", "::1"}).ok());
  EXPECT_TRUE(parse({"--address=0.0.0.0"}).ok());
  EXPECT_EQ(parse({"--prot", "1"}).error().message, "unknown argument \"--prot\"; see --help");
}

TEST(ServerOptions, TheHiddenShutdownGraceFlagGoesFromZeroToTheContractsFiveSeconds) {
  EXPECT_EQ(parse({})->shutdown_grace, std::chrono::seconds(5));
  EXPECT_EQ(parse({"--shutdown-grace-ms", "0"})->shutdown_grace, std::chrono::milliseconds(0));
  EXPECT_EQ(parse({"--shutdown-grace-ms=100"})->shutdown_grace, std::chrono::milliseconds(100));
  EXPECT_EQ(parse({"--shutdown-grace-ms", "5001"}).error().message,
            "--shutdown-grace-ms must be a number from 0 to 5000; it is \"5001\"");
}

}  // namespace
}  // namespace headgrader::server

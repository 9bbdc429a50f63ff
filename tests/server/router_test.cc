// The HTTP layer without sockets: every route and every error status of API.md §5 through
// the pure Router. The status table and error body are error_response_test.cc's, the
// access-log line access_log_test.cc's, the flags options_test.cc's.
#include "router.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "error_response.h"
#include "headgrader/diagnosis.h"
#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "part1_router.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::bundled_problems;
using testing::kHandoutSolution;

const Router& router() {
  static const testing::Part1Router part1(bundled_problems());
  return part1.router();
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

}  // namespace
}  // namespace headgrader::server

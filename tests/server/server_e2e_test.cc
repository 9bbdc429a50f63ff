// The real headgrader-server binary, started on port 0 and spoken to over TCP: every route
// answers JSON (a grading byte for byte the engine's), every error status has its JSON body,
// 32 concurrent clients each get the engine's answers, one JSON log line per request and no
// body in it. Its connections: http_connection_e2e_test.cc; its start and stop:
// server_process_e2e_test.cc.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "server_e2e_support.h"
#include "server_harness.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::bundled_problems;
using testing::kGradePath;
using testing::kHandoutSolution;
using testing::kProblemsDir;
using testing::kSwappedValues;

using namespace std::chrono_literals;
using namespace harness;
using server_e2e_testing::engine_grade;
using server_e2e_testing::kWrongKeyTwoFailures;
using server_e2e_testing::ServerE2E;

TEST_F(ServerE2E, EveryRouteAnswersJson) {
  Client client(port_);
  const HttpResponse list = client.send(http::verb::get, "/v1/problems");
  EXPECT_EQ(list.result(), http::status::ok);
  EXPECT_EQ(list[http::field::content_type], "application/json");
  EXPECT_GE(Json::parse(list.body())["problems"].size(), 3u);

  const HttpResponse problem = client.send(http::verb::get, "/v1/problems/consonant-anywhere");
  EXPECT_EQ(problem.result(), http::status::ok);
  EXPECT_EQ(problem.body(), problem_to_json(*bundled_problems().find("consonant-anywhere")).dump());
  EXPECT_FALSE(Json::parse(problem.body()).contains("reference"));

  const HttpResponse graded = client.send(http::verb::post, kGradePath, kHandoutSolution);
  EXPECT_EQ(graded.result(), http::status::ok);
  EXPECT_EQ(graded[http::field::content_type], "application/json");
  EXPECT_EQ(graded.body(), engine_grade("consonant-anywhere", kHandoutSolution));

  const HttpResponse health = client.send(http::verb::get, "/healthz");
  EXPECT_EQ(health.result(), http::status::ok);
  EXPECT_EQ(health.body(), R"({"status":"ok"})");
}

TEST_F(ServerE2E, EveryErrorStatusHasItsJsonBody) {
  struct Case {
    http::verb method;
    std::string target, body, content_type;
    http::status status;
    std::string code;
    Json field;
  };
  const Case cases[] = {
      {http::verb::get, "/nowhere", "", "", http::status::not_found, "not_found", nullptr},
      {http::verb::get, "/v1/problems/no-such", "", "", http::status::not_found, "not_found",
       nullptr},
      {http::verb::post, "/v1/problems/no-such/grade", kHandoutSolution, "application/json",
       http::status::not_found, "not_found", nullptr},
      {http::verb::delete_, "/v1/problems", "", "", http::status::method_not_allowed,
       "method_not_allowed", nullptr},
      {http::verb::post, kGradePath, kHandoutSolution, "text/plain",
       http::status::unsupported_media_type, "unsupported_media_type", nullptr},
      {http::verb::post, kGradePath, kHandoutSolution, "", http::status::unsupported_media_type,
       "unsupported_media_type", nullptr},
      {http::verb::post, kGradePath, "{nope", "application/json", http::status::bad_request,
       "invalid_json", nullptr},
      {http::verb::post, kGradePath,
       R"({"W_q": [[1, 1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})",
       "application/json; charset=utf-8", http::status::bad_request, "wrong_shape", "W_q"},
  };
  Client client(port_);  // errors in the body keep the connection usable
  for (const Case& c : cases) {
    SCOPED_TRACE(c.target + " " + c.body);
    const HttpResponse response = client.send(c.method, c.target, c.body, c.content_type);
    EXPECT_EQ(response.result(), c.status) << response.body();
    EXPECT_EQ(response[http::field::content_type], "application/json");
    const Json error = error_of(response);
    EXPECT_EQ(error["code"], c.code);
    EXPECT_TRUE(error["message"].is_string());
    EXPECT_EQ(error["field"], c.field);
    if (c.status == http::status::method_not_allowed) {
      EXPECT_EQ(response[http::field::allow], "GET, HEAD");
    }
  }
}

TEST_F(ServerE2E, ThirtyTwoClientsEachGradeAHundredTimes) {
  const std::string submissions[] = {kHandoutSolution, kWrongKeyTwoFailures, kSwappedValues};
  std::string expected[3];
  for (int i = 0; i < 3; ++i) expected[i] = engine_grade("consonant-anywhere", submissions[i]);
  ASSERT_NE(expected[0], expected[1]);

  constexpr int kClients = 32;
  constexpr int kGradings = 100;
  std::vector<int> correct(kClients, 0);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      try {
        Client client(port_);
        for (int i = 0; i < kGradings; ++i) {
          const int which = (c + i) % 3;
          const HttpResponse response =
              client.send(http::verb::post, kGradePath, submissions[which]);
          if (response.result() == http::status::ok && response.body() == expected[which]) {
            ++correct[c];
          }
        }
      } catch (const std::exception&) {
      }
    });
  }
  for (std::thread& client : clients) client.join();
  for (int c = 0; c < kClients; ++c) EXPECT_EQ(correct[c], kGradings) << "client " << c;
}

TEST_F(ServerE2E, LogsOneJsonLinePerRequestWithoutBodies) {
  // The server is shared with the suite's other tests, whose lines may still be on their way:
  // this request's line is told apart by its spelling ("%2D" for the id's '-'), which routing
  // decodes and the log keeps as sent (a query would not do: the log never shows one).
  const std::string target = "/v1/problems/consonant%2Danywhere/grade";
  const auto started = std::chrono::steady_clock::now();
  Client(port_).send(http::verb::post, target, kWrongKeyTwoFailures);
  const std::string log = server_->stderr_text_when(
      [&](const std::string& text) { return text.find(target) != std::string::npos; });
  // Written in batches, but soon: within the flush interval, give or take the scheduler.
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);
  EXPECT_EQ(log.find("W_q"), std::string::npos);
  EXPECT_EQ(log.find("reference"), std::string::npos);
  std::istringstream lines(log);
  std::string line, last_grade;
  while (std::getline(lines, line)) {
    const Json entry = Json::parse(line);  // every line is JSON
    if (entry["path"] == target) last_grade = line;
  }
  ASSERT_FALSE(last_grade.empty());
  const Json entry = Json::parse(last_grade);
  EXPECT_EQ(entry["method"], "POST");
  EXPECT_EQ(entry["status"], 200);
  EXPECT_EQ(entry["problem"], "consonant-anywhere");
  EXPECT_EQ(entry["passed"], false);
  EXPECT_TRUE(entry["latency_ms"].is_number());
  EXPECT_TRUE(entry["time"].is_string());
}

TEST_F(ServerE2E, HealthcheckModeExitsZeroWhenServing) {
  ServerProcess check({"--healthcheck", "--address", "127.0.0.1", "--port", std::to_string(port_)});
  const ExitStatus status = check.wait();
  EXPECT_TRUE(status.exited);
  EXPECT_EQ(status.code, 0);
}

TEST_F(ServerE2E, UnknownEmptyKeyIsNamedAsTheEmptyStringNotNull) {
  Client client(port_);
  const HttpResponse response =
      client.send(http::verb::post, kGradePath,
                  R"({"W_q":[[1,1]],"W_k":[[0,5]],"W_V":[[1,0],[0,1]],"":1})", "application/json");
  EXPECT_EQ(response.result(), http::status::bad_request) << response.body();
  const Json error = error_of(response);
  EXPECT_EQ(error["code"], "unknown_field");
  EXPECT_EQ(error["field"], Json(""));
}

}  // namespace
}  // namespace headgrader::server

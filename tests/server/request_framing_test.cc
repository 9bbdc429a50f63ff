// Requests whose framing a proxy could read differently from us (RFC 9112 §6.3, §3.2), and
// bodies and files whose shape alone could cost time (issue 18, findings 1, 6 and 7), against
// the real server binary: each framing is refused with 400 and the connection closed (one
// answer, never a second one read from the body); trailers are never taken for headers; no
// 100 Continue goes to HTTP/1.0; an object of 131 072 keys is refused in milliseconds while
// /healthz stays fast; a loader message tells apart the numbers it compares.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <regex>
#include <string>
#include <vector>

#include "headgrader/limits.h"
#include "headgrader/report.h"
#include "hostile_client.h"
#include "server_harness.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::kGradePath;
using testing::kHandoutSolution;

namespace fs = std::filesystem;
using namespace harness;

std::string chunked(const std::string& body) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx", body.size());
  return std::string(size) + "\r\n" + body + "\r\n0\r\n\r\n";
}

class RequestFraming : public SharedServerTest {};

struct FramingCase {
  const char* name;
  std::string request;
};

TEST_F(RequestFraming, EveryFramingButOneLengthOrChunkedAloneIsRefusedWith400AndClosed) {
  const std::string head =
      "POST " + kGradePath + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
  // Each body is itself a whole request: a server that ignored the framing would answer it
  // as a second request.
  const std::string smuggled = get_request("/healthz");
  const std::vector<FramingCase> cases = {
      {"gzip", head + "Transfer-Encoding: gzip\r\n\r\n" + smuggled},
      {"identity", head + "Transfer-Encoding: identity\r\n\r\n" + smuggled},
      {"chunked twice in one field",
       head + "Transfer-Encoding: chunked, chunked\r\n\r\n" + chunked(kHandoutSolution)},
      {"chunked in two fields",
       head + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n" +
           chunked(kHandoutSolution)},
      {"xchunked", head + "Transfer-Encoding: xchunked\r\n\r\n" + smuggled},
      {"chunked, gzip with a length", head +
                                          "Transfer-Encoding: chunked, gzip\r\nContent-Length: " +
                                          std::to_string(smuggled.size()) + "\r\n\r\n" + smuggled},
      {"chunked with a length", head + "Transfer-Encoding: chunked\r\nContent-Length: " +
                                    std::to_string(chunked(kHandoutSolution).size()) + "\r\n\r\n" +
                                    chunked(kHandoutSolution)},
      {"chunked on HTTP/1.0", "POST " + kGradePath +
                                  " HTTP/1.0\r\nContent-Type: application/json\r\n"
                                  "Transfer-Encoding: chunked\r\n\r\n" +
                                  chunked(kHandoutSolution)},
      {"two equal lengths", head + "Content-Length: " + std::to_string(kHandoutSolution.size()) +
                                "\r\nContent-Length: " + std::to_string(kHandoutSolution.size()) +
                                "\r\n\r\n" + kHandoutSolution},
      {"no Host on HTTP/1.1", "GET /healthz HTTP/1.1\r\n\r\n"},
      {"two Hosts on HTTP/1.1", "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"},
  };
  for (const FramingCase& c : cases) {
    SCOPED_TRACE(c.name);
    SourcedClient client(port_, "127.0.0.1");
    const std::optional<HttpResponse> answer = client.send(c.request);
    ASSERT_TRUE(answer.has_value());
    EXPECT_EQ(answer->result(), http::status::bad_request) << answer->body();
    EXPECT_EQ(Json::parse(answer->body())["error"]["code"], "bad_request");
    EXPECT_FALSE(answer->keep_alive());
    // Closed with no second answer, whatever the body held.
    EXPECT_TRUE(client.closed_within(2000ms));
  }
  // The sound framings still work, the coding's name in any case.
  for (const std::string coding : {"chunked", "Chunked"}) {
    SourcedClient client(port_, "127.0.0.1");
    const std::optional<HttpResponse> answer =
        client.send(head + "Transfer-Encoding: " + coding + "\r\n\r\n" + chunked(kHandoutSolution));
    ASSERT_TRUE(answer.has_value());
    EXPECT_EQ(answer->result(), http::status::ok) << answer->body();
  }
  EXPECT_LT(health_ms(port_), 1000);
}

TEST_F(RequestFraming, AContentTypeInATrailerDoesNotStandForTheHeaders) {
  SourcedClient client(port_, "127.0.0.1");
  const std::string request =
      "POST " + kGradePath + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
      chunked(kHandoutSolution).substr(0, chunked(kHandoutSolution).size() - 2) +
      "Content-Type: application/json\r\n\r\n";
  const std::optional<HttpResponse> answer = client.send(request);
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->result(), http::status::unsupported_media_type) << answer->body();
  EXPECT_NE(answer->body().find("the request has no Content-Type"), std::string::npos)
      << answer->body();
}

TEST_F(RequestFraming, NoContinueGoesToAnHttp10Client) {
  SourcedClient client(port_, "127.0.0.1");
  client.write("POST " + kGradePath + " HTTP/1.0\r\nContent-Type: application/json\r\n" +
               "Expect: 100-continue\r\nContent-Length: " +
               std::to_string(kHandoutSolution.size()) + "\r\n\r\n");
  // An HTTP/1.1 client would get "HTTP/1.1 100 Continue" at once; this one gets nothing yet.
  EXPECT_FALSE(client.anything_within(300ms));
  client.write(kHandoutSolution);
  const std::optional<HttpResponse> answer = client.read();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->result(), http::status::ok) << answer->body();

  // An HTTP/1.1 client still gets its 100 Continue.
  SourcedClient modern(port_, "127.0.0.1");
  modern.write("POST " + kGradePath + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
               "Expect: 100-continue\r\nContent-Length: " +
               std::to_string(kHandoutSolution.size()) + "\r\n\r\n");
  EXPECT_TRUE(modern.anything_within(2000ms));
}

// 131 072 distinct keys of 8 bytes: 1 MiB, the largest body there is.
std::string object_of_distinct_keys(std::size_t bytes) {
  std::string body = "{";
  for (std::size_t i = 0; body.size() + 16 < bytes; ++i) {
    if (i > 0) body += ',';
    body += "\"" + std::to_string(i) + "\":0";
  }
  return body + "}";
}

TEST_F(RequestFraming, AMegabyteObjectOfDistinctKeysIsRefusedInMillisecondsAndHealthStaysFast) {
  const std::string body = object_of_distinct_keys(limits::kMaxBodyBytes);
  ASSERT_LE(body.size(), limits::kMaxBodyBytes);
  // Two at once, as the issue's reproduction: each used to hold an io thread for 47 s.
  std::vector<std::future<std::optional<HttpResponse>>> sent;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 2; ++i) {
    sent.push_back(std::async(std::launch::async, [&] {
      SourcedClient client(port_, "127.0.0.2");
      return client.send(post_request(kGradePath, body));
    }));
  }
  double worst_health = 0;
  while (sent.back().wait_for(0ms) != std::future_status::ready &&
         std::chrono::steady_clock::now() - start < 20s) {
    worst_health = std::max(worst_health, health_ms(port_));
  }
  for (auto& future : sent) {
    const std::optional<HttpResponse> answer = future.get();
    ASSERT_TRUE(answer.has_value());
    EXPECT_EQ(answer->result(), http::status::bad_request);
    const Json error = Json::parse(answer->body())["error"];
    EXPECT_EQ(error["code"], "out_of_range");
    EXPECT_NE(error["message"].get<std::string>().find(
                  "more than " + std::to_string(limits::kMaxJsonObjectKeys) + " keys"),
              std::string::npos)
        << error;
  }
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, 2s) << "two 1 MiB bodies of distinct keys";
  EXPECT_LT(worst_health, 100) << "a /healthz meanwhile";
}

TEST(ProblemFileShapes, AProblemWithAnObjectOfManyKeysIsRefusedAtOnce) {
  const fs::path dir = testing::private_temp_path("many-keys-problem");
  fs::create_directories(dir);
  std::ifstream in(HEADGRADER_SOURCE_DIR "/problems/first-position.json");
  Json problem = Json::parse(in);
  Json classes = Json::object();
  // Built as the file would be, without the tree's own quadratic insertion.
  std::string text = problem.dump();
  std::string many = "{";
  for (int i = 0; i < 131'072; ++i) many += (i ? ",\"c" : "\"c") + std::to_string(i) + "\":\"a\"";
  many += "}";
  const std::string key = "\"classes\":";
  const std::size_t at = text.find(key);
  ASSERT_NE(at, std::string::npos);
  const std::size_t end = text.find('}', at);
  text.replace(at + key.size(), end + 1 - (at + key.size()), many);
  std::ofstream(dir / "first-position.json") << text;

  const auto start = std::chrono::steady_clock::now();
  ServerProcess server({"--problems", dir.string(), "--port", "0", "--address", "127.0.0.1"});
  const ExitStatus status = server.wait(20s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_TRUE(status.exited);
  EXPECT_EQ(status.code, 1);
  EXPECT_NE(server.stderr_text().find("first-position.json: classes: the file holds an object "
                                      "with more than " +
                                      std::to_string(limits::kMaxJsonObjectKeys) + " keys"),
            std::string::npos)
      << server.stderr_text();
}

// A tolerance of 5e-324 with a reference off by about 2e-9 in its first component: six
// digits print both rows as [1, 0].
TEST(ProblemFileShapes, AFailingReferenceIsShownWithTheDigitsThatTellItFromTheExpected) {
  const fs::path dir = testing::private_temp_path("told-apart-problem");
  fs::create_directories(dir);
  std::ifstream in(HEADGRADER_SOURCE_DIR "/problems/first-position.json");
  Json problem = Json::parse(in);
  // 'b' first: the shortest strings are then "b", "a", "bb" (exactly [1, 0]), "ba", …
  std::string alphabet = problem["alphabet"];
  std::swap(alphabet[0], alphabet[1]);
  problem["alphabet"] = alphabet;
  for (auto& row : problem["W_E"]) std::swap(row[0], row[1]);
  problem["tolerance"] = 5e-324;
  problem["reference"]["W_k"] = Json::parse("[[0, 0, 20]]");
  std::ofstream(dir / "first-position.json") << problem.dump();

  ServerProcess server({"--problems", dir.string(), "--port", "0", "--address", "127.0.0.1"});
  const ExitStatus status = server.wait(20s);
  EXPECT_EQ(status.code, 1);
  const std::string log = server.stderr_text();
  const std::regex rows(R"(it gives \[([^\]]*)\] where expected is \[([^\]]*)\])");
  std::smatch found;
  ASSERT_TRUE(std::regex_search(log, found, rows)) << log;
  EXPECT_NE(found[1].str(), found[2].str()) << log;
  EXPECT_EQ(found[2].str(), "1, 0") << log;
  // What it gives, read back, is below 1 by what a softmax leaves on the second token.
  const double given = std::stod(found[1].str());
  EXPECT_LT(given, 1.0) << log;
  EXPECT_GT(given, 1.0 - 1e-6) << log;
}

}  // namespace
}  // namespace headgrader::server

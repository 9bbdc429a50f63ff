// The real server's HTTP connections, over TCP: malformed HTTP is 400 and huge headers 431,
// a body over the limit 413 with the server serving on, keep-alive, a HEAD error on a kept
// connection, Expect: 100-continue, pipelining, an answer larger than the socket buffers for
// a slow reader; plus the connection cap, in process with a small cap.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "listener.h"
#include "part1_router.h"
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

TEST_F(ServerE2E, MalformedHttpIs400AndHugeHeadersAre431) {
  {
    Client client(port_);
    client.write_raw("GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n");
    const HttpResponse response = client.read();
    EXPECT_EQ(response.result(), http::status::bad_request);
    EXPECT_EQ(error_of(response)["code"], "bad_request");
    EXPECT_FALSE(response.keep_alive());
  }
  {
    Client client(port_);
    client.write_raw("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20000, 'a') +
                     "\r\n\r\n");
    const HttpResponse response = client.read();
    EXPECT_EQ(response.result(), http::status::request_header_fields_too_large);
    EXPECT_EQ(error_of(response)["code"], "header_too_large");
  }
  EXPECT_EQ(Client(port_).send(http::verb::get, "/healthz").result(), http::status::ok);
}

TEST_F(ServerE2E, BodyOverTheLimitIs413AndTheServerKeepsServing) {
  // Declared too large: refused from the header, before the body is read.
  {
    Client client(port_);
    const std::string body(limits::kMaxBodyBytes + 1, ' ');
    client.write(http::verb::post, kGradePath, body);
    const HttpResponse response = client.read();
    EXPECT_EQ(response.result(), http::status::payload_too_large);
    EXPECT_EQ(response[http::field::content_type], "application/json");
    EXPECT_EQ(error_of(response)["code"], "body_too_large");
    EXPECT_EQ(error_of(response)["message"],
              "the body is larger than the limit of 1048576 bytes (1 MiB); the request declares "
              "1048577 bytes");
    EXPECT_FALSE(response.keep_alive());
  }
  // Chunked, so the limit is only found while reading.
  {
    Client client(port_);
    client.write_raw("POST " + kGradePath +
                     " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n");
    const std::string chunk = "10000\r\n" + std::string(0x10000, ' ') + "\r\n";
    beast::error_code ec;
    for (int i = 0; i < 17 && !ec; ++i) {
      try {
        client.write_raw(chunk);
      } catch (const std::exception&) {
        break;  // the server has answered and stopped reading
      }
    }
    const HttpResponse response = client.read();
    EXPECT_EQ(response.result(), http::status::payload_too_large);
    EXPECT_EQ(error_of(response)["code"], "body_too_large");
    // No length was declared: the limit alone.
    EXPECT_EQ(error_of(response)["message"],
              "the body is larger than the limit of 1048576 bytes (1 MiB)");
  }
  Client after(port_);
  EXPECT_EQ(after.send(http::verb::post, kGradePath, kHandoutSolution).body(),
            engine_grade("consonant-anywhere", kHandoutSolution));
}

TEST_F(ServerE2E, KeepAliveServesManyRequestsOnOneConnection) {
  Client client(port_);
  for (int i = 0; i < 20; ++i) {
    const HttpResponse response = i % 2
                                      ? client.send(http::verb::get, "/healthz")
                                      : client.send(http::verb::post, kGradePath, kHandoutSolution);
    ASSERT_EQ(response.result(), http::status::ok);
    EXPECT_TRUE(response.keep_alive());
  }
}

// Both requests arrive in one segment; the answer to HEAD must end with its headers, or its
// body would be read as the start of the next answer.
TEST_F(ServerE2E, HeadErrorOnAKeptConnectionIsFollowedDirectlyByTheNextAnswer) {
  net::io_context ioc;
  tcp::socket socket(ioc);
  socket.connect(tcp::endpoint(net::ip::address_v4::loopback(), port_));
  const timeval timeout{10, 0};
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  net::write(socket, net::buffer(std::string_view(
                         "HEAD /v1/problems/no-such HTTP/1.1\r\nHost: x\r\n\r\n"
                         "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")));
  std::string received;
  beast::error_code ec;
  net::read(socket, net::dynamic_buffer(received), ec);  // to the end: the server closes
  ASSERT_EQ(ec, net::error::eof) << ec.message();
  const std::size_t head_end = received.find("\r\n\r\n");
  ASSERT_NE(head_end, std::string::npos) << received;
  EXPECT_TRUE(received.starts_with("HTTP/1.1 404 Not Found\r\n")) << received;
  const std::string rest = received.substr(head_end + 4);
  EXPECT_TRUE(rest.starts_with("HTTP/1.1 200 OK\r\n")) << received;
  EXPECT_TRUE(rest.ends_with("\r\n\r\n{\"status\":\"ok\"}")) << received;
}

TEST_F(ServerE2E, ExpectContinueGetsTheBodyRead) {
  Client client(port_);
  client.write_raw("POST " + kGradePath +
                   " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                   "Expect: 100-continue\r\nContent-Length: " +
                   std::to_string(kHandoutSolution.size()) + "\r\n\r\n");
  const HttpResponse interim = client.read();
  EXPECT_EQ(interim.result(), http::status::continue_);
  client.write_raw(kHandoutSolution);
  const HttpResponse response = client.read();
  EXPECT_EQ(response.body(), engine_grade("consonant-anywhere", kHandoutSolution));
}

// Requests sent back to back before any answer is read are answered in order, each whole.
TEST_F(ServerE2E, PipelinedRequestsAreAnsweredInOrder) {
  constexpr int kRequests = 90;
  const std::string graded = engine_grade("consonant-anywhere", kHandoutSolution);
  std::string requests;
  for (int i = 0; i < kRequests; ++i) {
    const std::string close = i + 1 == kRequests ? "Connection: close\r\n" : "";
    if (i % 3 == 0) requests += "GET /healthz HTTP/1.1\r\nHost: x\r\n" + close + "\r\n";
    if (i % 3 == 1) {
      requests += "POST " + kGradePath +
                  " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  "Content-Length: " +
                  std::to_string(kHandoutSolution.size()) + "\r\n" + close + "\r\n" +
                  kHandoutSolution;
    }
    if (i % 3 == 2) requests += "GET /v1/problems/no-such HTTP/1.1\r\nHost: x\r\n" + close + "\r\n";
  }
  Client client(port_);
  client.write_raw(requests);  // a few KiB: the server's receive buffer takes them all
  for (int i = 0; i < kRequests; ++i) {
    const HttpResponse response = client.read();
    if (i % 3 == 0) {
      EXPECT_EQ(response.body(), R"({"status":"ok"})") << "answer " << i;
    } else if (i % 3 == 1) {
      EXPECT_EQ(response.body(), graded) << "answer " << i;
    } else {
      EXPECT_EQ(response.result(), http::status::not_found) << "answer " << i;
    }
    ASSERT_EQ(response.keep_alive(), i + 1 < kRequests) << "answer " << i;
  }
  EXPECT_TRUE(client.closed_by_server());
}

// An answer larger than the socket can hold is written in parts as the client reads: a client
// that reads slowly (a small receive buffer, and nothing read for a while) still gets it whole.
TEST(ServerProcessE2E, AnswerLargerThanTheSocketBuffersReachesASlowReaderWhole) {
  const std::string folder = HEADGRADER_SOURCE_DIR "/tests/data/server/long-strings";
  const std::string id = "consonant-anywhere-long";
  const std::string body = R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[0, 1], [1, 0]],)"
                           R"( "max_failures": 100})";
  auto loaded = ProblemSet::load(folder);
  ASSERT_TRUE(std::holds_alternative<ProblemSet>(loaded));
  const Problem& problem = *std::get<ProblemSet>(loaded).find(id);
  const Result<Submission> submission = parse_submission(problem, body);
  ASSERT_TRUE(submission) << submission.error().message;
  const std::string expected = report_json(
      problem, grade_with_diagnosis(problem, submission->weights, submission->max_failures));
  // More than the most a loopback socket's send buffer holds by default (tcp_wmem, 4 MiB),
  // so the server cannot write it at once whatever the kernel's tuning does.
  ASSERT_GT(expected.size(), 5'000'000u);

  ServerProcess server(
      {"--port", "0", "--address", "127.0.0.1", "--threads", "2", "--problems", folder});
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);
  net::io_context ioc;
  tcp::socket socket(ioc);
  socket.open(tcp::v4());
  socket.set_option(net::socket_base::receive_buffer_size(4096));
  socket.connect(tcp::endpoint(net::ip::address_v4::loopback(), port));
  const timeval timeout{10, 0};
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  net::write(socket, net::buffer("POST /v1/problems/" + id +
                                 "/grade HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                                 "\r\nContent-Length: " +
                                 std::to_string(body.size()) + "\r\n\r\n" + body));
  std::this_thread::sleep_for(300ms);  // the server fills the socket and must wait
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);
  beast::error_code ec;
  http::read(socket, buffer, parser, ec);
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(parser.get().result(), http::status::ok);
  EXPECT_TRUE(parser.get().body() == expected)
      << "an answer of " << parser.get().body().size() << " bytes, not the " << expected.size()
      << " bytes of the grade";
}

// --- The connection cap, in process -------------------------------------------------------------

TEST(ListenerCap, ConnectionOverTheCapGets503AndClose) {
  int log_pipe[2];
  ASSERT_EQ(pipe(log_pipe), 0);
  std::optional<AccessLog> access_log(std::in_place, log_pipe[1]);
  net::io_context ioc;
  const testing::Part1Router part1(bundled_problems());
  const Router& router = part1.router();
  auto opened = Listener::open(ioc, {net::ip::address_v4::loopback(), 0}, router, *access_log, 2);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  auto listener = opened.value();
  listener->run();
  std::thread loop([&ioc] { ioc.run(); });
  const std::uint16_t port = listener->local_endpoint().port();

  {
    // Two connections that have not sent their first request yet: neither may be closed to
    // make room (an idle keep-alive connection would be, oldest first: HostileTraffic tests).
    Client first(port), second(port);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    Client third(port);
    third.write(http::verb::get, "/healthz");
    const HttpResponse refused = third.read();
    EXPECT_EQ(refused.result(), http::status::service_unavailable);
    EXPECT_EQ(error_of(refused)["code"], "too_many_connections");
    EXPECT_FALSE(refused.keep_alive());
    EXPECT_EQ(first.send(http::verb::get, "/healthz").result(), http::status::ok);
  }
  // Once they are gone there is room again.
  for (int i = 0; i < 100 && listener->connections() > 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(Client(port).send(http::verb::get, "/healthz").result(), http::status::ok);

  listener->shutdown();
  loop.join();
  // The refusal is logged like any answer (a few lines: the pipe holds them all).
  access_log.reset();
  close(log_pipe[1]);
  std::string log(1 << 16, '\0');
  const ssize_t n = read(log_pipe[0], log.data(), log.size());
  close(log_pipe[0]);
  log.resize(static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
  EXPECT_NE(log.find(R"("status":503)"), std::string::npos) << log;
}

}  // namespace
}  // namespace headgrader::server

// The real headgrader-server binary, started on port 0 and spoken to over TCP: every route,
// every error status, keep-alive, pipelining, 32 concurrent clients, an answer larger than the
// socket buffers, SIGTERM with requests in flight, the body limit; plus the connection cap, in
// process with a small cap.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "headgrader/diagnosis.h"
#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "listener.h"
#include "part1_router.h"
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

const std::string kWrongKeyTwoFailures =
    R"({"W_q": [[1, 1]], "W_k": [[0, 1]], "W_V": [[1, 0], [0, 1]], "max_failures": 2})";

// --- The engine's own answers, to compare with byte for byte -----------------------------------

std::string engine_grade(const std::string& id, const std::string& body) {
  const Problem& problem = *bundled_problems().find(id);
  const Result<Submission> submission = parse_submission(problem, body);
  if (!submission) return "unexpected: " + submission.error().message;
  return report_json(problem,
                     grade_with_diagnosis(problem, submission->weights, submission->max_failures));
}

class ServerE2E : public SharedServerTest {};

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

// --- Starting and stopping -----------------------------------------------------------------------

TEST(ServerProcessE2E, SigtermAnswersRequestsInFlightThenExitsZero) {
  ServerProcess server({"--port", "0", "--problems", kProblemsDir, "--threads", "2"});
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);

  // An idle keep-alive connection, and four requests whose bodies are half sent.
  Client idle(port);
  ASSERT_EQ(idle.send(http::verb::get, "/healthz").result(), http::status::ok);
  const std::string head = "POST " + kGradePath +
                           " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           "Content-Length: " +
                           std::to_string(kHandoutSolution.size()) + "\r\n\r\n";
  const std::size_t half = kHandoutSolution.size() / 2;
  std::vector<std::unique_ptr<Client>> busy;
  for (int i = 0; i < 4; ++i) {
    busy.push_back(std::make_unique<Client>(port));
    busy.back()->write_raw(head + kHandoutSolution.substr(0, half));
  }
  std::this_thread::sleep_for(100ms);
  server.signal(SIGTERM);
  std::this_thread::sleep_for(200ms);

  EXPECT_TRUE(idle.closed_by_server());
  EXPECT_THROW(Client{port}, std::exception);  // no longer accepting
  const std::string expected = engine_grade("consonant-anywhere", kHandoutSolution);
  for (auto& client : busy) {
    client->write_raw(kHandoutSolution.substr(half));
    const HttpResponse response = client->read();
    EXPECT_EQ(response.body(), expected);
    EXPECT_FALSE(response.keep_alive());
  }
  const ExitStatus status = server.wait();
  EXPECT_TRUE(status.exited);
  EXPECT_EQ(status.code, 0);
}

// Behind a balancer (docker/compose.yaml's scale profile) a connection is opened for each
// request: one accepted just before SIGTERM is answered, not closed with its grading unread;
// one that never sends is closed soon after, and the server still exits 0.
TEST(ServerProcessE2E, AConnectionOpenedJustBeforeSigtermIsStillAnswered) {
  ServerProcess server({"--port", "0", "--problems", kProblemsDir, "--threads", "2"});
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);
  Client fresh(port);
  Client silent(port);
  std::this_thread::sleep_for(50ms);  // both accepted
  server.signal(SIGTERM);
  std::this_thread::sleep_for(50ms);
  const HttpResponse response = fresh.send(http::verb::post, kGradePath, kHandoutSolution);
  EXPECT_EQ(response.result(), http::status::ok);
  EXPECT_EQ(response.body(), engine_grade("consonant-anywhere", kHandoutSolution));
  EXPECT_FALSE(response.keep_alive());
  const ExitStatus status = server.wait();
  EXPECT_TRUE(status.exited);
  EXPECT_EQ(status.code, 0);
  EXPECT_TRUE(silent.closed_by_server());
}

TEST(ServerProcessE2E, SigintWithNothingInFlightExitsZeroAtOnce) {
  ServerProcess server({"--port", "0", "--problems", kProblemsDir});
  ASSERT_NE(server.wait_listening(), 0);
  const auto start = std::chrono::steady_clock::now();
  server.signal(SIGINT);
  const ExitStatus status = server.wait();
  EXPECT_TRUE(status.exited);
  EXPECT_EQ(status.code, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
}

TEST(ServerProcessE2E, InvalidProblemFolderPrintsEveryDefectAndExitsNonZero) {
  ServerProcess server(
      {"--port", "0", "--problems", HEADGRADER_SOURCE_DIR "/tests/data/server/invalid"});
  const ExitStatus status = server.wait();
  EXPECT_TRUE(status.exited);
  EXPECT_NE(status.code, 0);
  const std::string err = server.stderr_text();
  EXPECT_NE(err.find("broken.json"), std::string::npos) << err;
  EXPECT_NE(err.find("truncated.json"), std::string::npos) << err;
  EXPECT_EQ(server.read_line(100ms), "");  // never listened
}

// API.md §6: --problems defaults to the bundled problems, not to a problems/ folder that
// happens to be in the working directory.
TEST(ServerProcessE2E, WithoutProblemsFlagServesTheBundledProblemsFromAnyWorkingDirectory) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("headgrader-cwd-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "problems");
  std::filesystem::copy_file(std::string(kProblemsDir) + "/consonant-anywhere.json",
                             dir / "problems" / "consonant-anywhere.json",
                             std::filesystem::copy_options::overwrite_existing);
  ServerProcess server({"--port", "0", "--address", "127.0.0.1"}, StderrTo::kFile, dir);
  const std::uint16_t port = server.wait_listening();
  std::filesystem::remove_all(dir);
  ASSERT_NE(port, 0) << server.stderr_text();
  const Json list = Json::parse(Client(port).send(http::verb::get, "/v1/problems").body());
  std::vector<std::string> served, bundled;
  for (const Json& problem : list["problems"]) served.push_back(problem["id"]);
  for (const auto& problem : bundled_problems().problems()) bundled.push_back(problem->id);
  EXPECT_GE(bundled.size(), 3u);  // more than the one in the working directory
  EXPECT_EQ(served, bundled);
}

TEST(ServerProcessE2E, HelpDescribesTheFlags) {
  ServerProcess server({"--help"});
  const std::string text = server.read_all();
  EXPECT_TRUE(text.starts_with("usage: ")) << text;
  for (const char* flag : {"--problems", "--address", "--port", "--threads", "--healthcheck"}) {
    EXPECT_NE(text.find(flag), std::string::npos) << flag;
  }
  EXPECT_EQ(server.wait().code, 0);
}

TEST(ServerProcessE2E, HealthcheckFailsWhenNothingListens) {
  std::uint16_t port = 0;
  {
    net::io_context ioc;
    tcp::acceptor acceptor(ioc, tcp::endpoint(net::ip::address_v4::loopback(), 0));
    port = acceptor.local_endpoint().port();
  }
  ServerProcess check({"--healthcheck", "--address", "127.0.0.1", "--port", std::to_string(port)});
  EXPECT_EQ(check.wait().code, 1);
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

// The access log's writes fail when nothing reads stderr any more (a pipe whose reader
// died): the server must go on answering, not die of SIGPIPE.
TEST(ServerProcessE2E, KeepsServingWhenNothingReadsItsLog) {
  ServerProcess server(
      {"--port", "0", "--address", "127.0.0.1", "--threads", "2", "--problems", kProblemsDir},
      StderrTo::kClosedPipe);
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);
  Client client(port);
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(client.send(http::verb::post, kGradePath, kHandoutSolution).result(),
              http::status::ok);
    std::this_thread::sleep_for(2ms);  // across several flushes of the log
  }
  server.signal(SIGTERM);
  const ExitStatus status = server.wait();
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

// The real server's process: SIGTERM answers the requests in flight (and a connection opened
// just before it) then exits 0, SIGINT with nothing in flight at once; an invalid problem
// folder prints every defect and exits non-zero; the bundled problems without --problems;
// --help; --healthcheck when nothing listens; serving on when nothing reads its log.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
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

}  // namespace
}  // namespace headgrader::server

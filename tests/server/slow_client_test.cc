// Slow and idle clients against the real server binary: connections that send half a request
// and stall must not keep others from being served, and are closed once the read timeout has
// passed (shortened here with the hidden --read-timeout-ms flag); connections over the cap
// (lowered with the hidden --max-connections flag) get a 503 JSON answer and are closed.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "headgrader/report.h"
#include "server_harness.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::kGradePath;
using testing::kHandoutSolution;
using testing::kProblemsDir;

using namespace harness;

// A plain blocking socket connected to loopback:port, or -1.
int connect_raw(std::uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Whether the server has closed `fd` (end of stream or reset) within `timeout`.
bool closed_within(int fd, std::chrono::milliseconds timeout) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
  char buffer[512];
  const ssize_t n = recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
  return n <= 0;
}

std::chrono::milliseconds since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start);
}

TEST(SlowClients, FiveHundredStalledRequestsDoNotBlockOthersAndAreClosedAfterTheReadTimeout) {
  constexpr int kStalled = 500;
  constexpr auto kReadTimeout = 2000ms;
  ServerProcess server({"--port", "0", "--address", "127.0.0.1", "--threads", "2", "--problems",
                        kProblemsDir, "--read-timeout-ms", "2000"});
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);

  // Half a request each: the header of a grading and half its body.
  const std::string head = "POST " + kGradePath +
                           " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           "Content-Length: " +
                           std::to_string(kHandoutSolution.size()) + "\r\n\r\n";
  const std::string half = head + kHandoutSolution.substr(0, kHandoutSolution.size() / 2);
  std::vector<int> stalled;
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < kStalled; ++i) {
    const int fd = connect_raw(port);
    ASSERT_GE(fd, 0) << "connection " << i;
    ASSERT_EQ(send(fd, half.data(), half.size(), MSG_NOSIGNAL), static_cast<ssize_t>(half.size()));
    stalled.push_back(fd);
  }
  const auto opened = since(started);

  // Another client is served promptly, several times, while they stall.
  for (int i = 0; i < 5; ++i) {
    const auto asked = std::chrono::steady_clock::now();
    Client client(port);
    const HttpResponse health = client.send(http::verb::get, "/healthz");
    const HttpResponse graded = client.send(http::verb::post, kGradePath, kHandoutSolution);
    const auto took = since(asked);
    EXPECT_EQ(health.result(), http::status::ok);
    EXPECT_EQ(graded.result(), http::status::ok);
    EXPECT_EQ(Json::parse(graded.body())["passed"], true);
    EXPECT_LT(took, 500ms) << "a client waited behind the stalled ones";
  }

  // Every stalled connection is closed by the server once the read timeout has passed
  // (measured from its request's first byte), and none long after.
  const auto deadline = started + opened + kReadTimeout + 3000ms;
  int closed = 0;
  for (const int fd : stalled) {
    const auto left = std::max(std::chrono::milliseconds(0),
                               std::chrono::duration_cast<std::chrono::milliseconds>(
                                   deadline - std::chrono::steady_clock::now()));
    if (closed_within(fd, left)) ++closed;
  }
  EXPECT_EQ(closed, kStalled);
  EXPECT_GE(since(started), kReadTimeout - 100ms);
  for (const int fd : stalled) close(fd);

  // And it still serves.
  EXPECT_EQ(Client(port).send(http::verb::get, "/healthz").result(), http::status::ok);
}

TEST(SlowClients, StalledConnectionIsNotClosedBeforeTheReadTimeout) {
  ServerProcess server({"--port", "0", "--address", "127.0.0.1", "--problems", kProblemsDir,
                        "--read-timeout-ms", "1500"});
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);
  const int fd = connect_raw(port);
  ASSERT_GE(fd, 0);
  const std::string part = "GET /heal";
  ASSERT_EQ(send(fd, part.data(), part.size(), MSG_NOSIGNAL), static_cast<ssize_t>(part.size()));
  EXPECT_FALSE(closed_within(fd, 700ms));
  EXPECT_TRUE(closed_within(fd, 3000ms));
  close(fd);
}

// One GET /healthz on `fd`, keep-alive: whether a whole 200 answer came back.
bool healthz_on(int fd) {
  const std::string request = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    return false;
  }
  std::string got;
  char buffer[1024];
  while (true) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 5000) <= 0) return false;
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return false;
    got.append(buffer, static_cast<std::size_t>(n));
    const auto end = got.find("\r\n\r\n");
    const auto length_at = got.find("Content-Length: ");
    if (end == std::string::npos || length_at == std::string::npos) continue;
    const std::size_t length = std::stoul(got.substr(length_at + 16));
    if (got.size() >= end + 4 + length) return got.starts_with("HTTP/1.1 200 ");
  }
}

// The timeouts are per step: a connection in use keeps moving its deadline, so no earlier
// step's deadline may close it, and the step it is in is still timed from its own start.
TEST(SlowClients, ABusyKeptConnectionOutlivesManyTimeoutsAndIsClosedOnceIdleOrStalled) {
  constexpr auto kTimeout = 400ms;  // read and idle alike (the flag shortens both)
  ServerProcess server({"--port", "0", "--address", "127.0.0.1", "--threads", "2", "--problems",
                        kProblemsDir, "--read-timeout-ms", "400"});
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);

  // Requests 100 ms apart for 2 s, five timeouts long: every one answered on one connection.
  const int busy = connect_raw(port);
  ASSERT_GE(busy, 0);
  const auto started = std::chrono::steady_clock::now();
  int served = 0;
  auto idle_from = started;
  while (true) {
    ASSERT_TRUE(healthz_on(busy)) << "request " << served << " after " << since(started).count()
                                  << " ms";
    ++served;
    idle_from = std::chrono::steady_clock::now();
    if (since(started) >= 2000ms) break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_GE(served, 10);
  // Then idle from the last answer: closed after the idle timeout, not before.
  EXPECT_FALSE(closed_within(busy, kTimeout - 150ms));
  EXPECT_TRUE(closed_within(busy, 3000ms));
  EXPECT_GE(since(idle_from), kTimeout - 50ms);
  close(busy);

  // A connection that served requests, then stalls in the middle of one: closed once that
  // request's read timeout has passed from its first byte.
  const int stalls = connect_raw(port);
  ASSERT_GE(stalls, 0);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(healthz_on(stalls));
    std::this_thread::sleep_for(150ms);
  }
  const std::string part = "GET /heal";
  const auto stalled_from = std::chrono::steady_clock::now();
  ASSERT_EQ(send(stalls, part.data(), part.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(part.size()));
  EXPECT_FALSE(closed_within(stalls, kTimeout - 150ms));
  EXPECT_TRUE(closed_within(stalls, 3000ms));
  EXPECT_GE(since(stalled_from), kTimeout - 50ms);
  close(stalls);
}

TEST(SlowClients, ConnectionsOverTheCapGet503AndAreClosedAndRoomComesBack) {
  ServerProcess server({"--port", "0", "--address", "127.0.0.1", "--problems", kProblemsDir,
                        "--max-connections", "4"});
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);
  std::vector<int> idle;
  for (int i = 0; i < 4; ++i) {
    idle.push_back(connect_raw(port));
    ASSERT_GE(idle.back(), 0);
  }
  // Let the server accept all four before the fifth comes.
  {
    Client probe_is_fifth(port);
    probe_is_fifth.write(http::verb::get, "/healthz");
    const HttpResponse refused = probe_is_fifth.read();
    EXPECT_EQ(refused.result(), http::status::service_unavailable);
    EXPECT_EQ(Json::parse(refused.body())["error"]["code"], "too_many_connections");
    EXPECT_FALSE(refused.keep_alive());
    EXPECT_TRUE(probe_is_fifth.closed_by_server());
  }
  for (int i = 0; i < 20; ++i) {  // a burst over the cap: each refused cleanly, none hangs
    const std::optional<HttpResponse> refused =
        exchange_raw(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 5s);
    ASSERT_TRUE(refused.has_value());
    EXPECT_EQ(refused->result(), http::status::service_unavailable);
  }
  for (const int fd : idle) close(fd);
  // Room again once they are gone.
  bool served = false;
  for (int i = 0; i < 50 && !served; ++i) {
    const std::optional<HttpResponse> answer =
        exchange_raw(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 5s);
    served = answer && answer->result() == http::status::ok;
    if (!served) std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(served);
}

}  // namespace
}  // namespace headgrader::server

// X-Request-Id and the access log's formats against the real server (API.md §17): a valid id
// is echoed and logged, an invalid one (too long, a control character) replaced by a fresh
// one, every answer has one (an error before routing included); --log-format json and text
// write one line per answer with the answer's id, and neither ever holds a key, a student,
// an Idempotency-Key, a query or a submission's numbers.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "operations_support.h"
#include "server_harness.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using namespace harness;
using testing::kGradePath;
using testing::kProblemsDir;

const std::regex kFreshId("^[0-9a-f]{32}$");

std::vector<std::string> log_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

TEST(RequestIdE2E, AValidIdIsEchoedAndAnInvalidOneReplacedOnEveryAnswer) {
  ServerProcess server(
      {"--port", "0", "--address", "127.0.0.1", "--threads", "2", "--problems", kProblemsDir});
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);

  const std::string mine = "ticket-4711.retry_2";
  EXPECT_EQ(call(port, "GET", "/healthz", "", "", {"X-Request-Id: " + mine})["X-Request-Id"], mine);
  // An error answer carries it too.
  const HttpResponse missing =
      call(port, "GET", "/v1/problems/no-such", "", "", {"X-Request-Id: " + mine});
  EXPECT_EQ(missing.result_int(), 404u);
  EXPECT_EQ(missing["X-Request-Id"], mine);

  const std::string too_long(limits::kMaxRequestIdBytes + 1, 'a');
  for (const std::string& bad : {too_long, std::string("a\tb"), std::string("a;b")}) {
    const std::string id = std::string(
        call(port, "GET", "/healthz", "", "", {"X-Request-Id: " + bad})["X-Request-Id"]);
    EXPECT_TRUE(std::regex_match(id, kFreshId)) << "\"" << bad << "\" gave \"" << id << "\"";
  }
  // No id sent: a fresh one, another for each request.
  const std::string first(call(port, "GET", "/healthz")["X-Request-Id"]);
  const std::string second(call(port, "GET", "/healthz")["X-Request-Id"]);
  EXPECT_TRUE(std::regex_match(first, kFreshId)) << first;
  EXPECT_NE(first, second);
  // A request the parser refuses is answered 400 before routing, with a fresh id.
  const std::optional<HttpResponse> refused =
      exchange_raw(port, "GET /healthz HTTP/x.y\r\nHost: x\r\nX-Request-Id: abc\r\n\r\n");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->result_int(), 400u);
  EXPECT_TRUE(std::regex_match(std::string((*refused)["X-Request-Id"]), kFreshId));

  // The log's line of an answer holds the same id.
  const std::string log = server.stderr_text_when(
      [&](const std::string& text) { return text.find(second) != std::string::npos; });
  bool found = false;
  for (const std::string& line : log_lines(log)) {
    if (!line.starts_with("{")) continue;
    const Json entry = Json::parse(line);
    if (entry["request_id"] == mine && entry["status"] == 404) found = true;
  }
  EXPECT_TRUE(found) << log;
}

// A server with keys and a store, graded with a student, an Idempotency-Key and a query
// naming a student, in `format`; its log's lines.
std::vector<std::string> lines_after_secret_traffic(const std::string& format,
                                                    std::vector<std::string>& secrets) {
  const std::filesystem::path dir = testing::empty_folder("log-format-" + format);
  const std::string staff = testing::add_key(dir / "keys.json", "ta", "staff");
  const std::string lms = testing::add_key(dir / "keys.json", "canvas", "lms");
  EXPECT_EQ(staff.size(), 43u);
  EXPECT_EQ(lms.size(), 43u);
  ServerProcess server({"--port", "0", "--address", "127.0.0.1", "--threads", "2", "--problems",
                        kProblemsDir, "--keys", (dir / "keys.json").string(), "--store",
                        "sqlite:" + (dir / "h.db").string(), "--log-format", format});
  const std::uint16_t port = server.wait_listening();
  EXPECT_NE(port, 0);
  if (port == 0) return {};
  const std::string student = "student-zelda-7731";
  const std::string idempotency = "idem-5fe1c0ffee";
  // Numbers that appear nowhere else: a submission's entries must never be logged.
  const std::string body = testing::with_student(
      R"({"W_q": [[1.23456789, 1.23456789]], "W_k": [[0, 5.87654321]], "W_V": [[1, 0], [0, 1]]})",
      student);
  EXPECT_EQ(call(port, "POST", kGradePath, lms, body,
                 {"Idempotency-Key: " + idempotency, "X-Request-Id: graded-1"})
                .result_int(),
            200u);
  EXPECT_EQ(call(port, "GET", "/v1/submissions?student=" + student, staff).result_int(), 200u);
  EXPECT_EQ(call(port, "GET", "/v1/submissions", "wrong-" + lms).result_int(), 401u);
  secrets = {staff, lms, "wrong-" + lms, student, idempotency, "1.23456789", "5.87654321"};
  const std::string log = server.stderr_text_when([](const std::string& text) {
    return text.find("status=401") != std::string::npos ||
           text.find("\"status\":401") != std::string::npos;
  });
  std::vector<std::string> lines;
  for (const std::string& line : log_lines(log)) {
    // The server's own lines ("problems: …") are not the access log's.
    if (line.starts_with("{") || line.starts_with("time=")) lines.push_back(line);
  }
  std::filesystem::remove_all(dir);
  return lines;
}

TEST(AccessLogE2E, JsonLinesParseOneByOneAndHoldNoSecret) {
  std::vector<std::string> secrets;
  const std::vector<std::string> lines = lines_after_secret_traffic("json", secrets);
  ASSERT_EQ(lines.size(), 3u);
  for (const std::string& line : lines) {
    const Json entry = Json::parse(line);  // throws (fails) unless each line is JSON
    for (const char* field :
         {"time", "method", "path", "status", "latency_ms", "problem", "passed", "request_id"}) {
      EXPECT_TRUE(entry.contains(field)) << field << " missing: " << line;
    }
    for (const std::string& secret : secrets) {
      EXPECT_EQ(line.find(secret), std::string::npos) << secret << " in " << line;
    }
  }
  const Json graded = Json::parse(lines[0]);
  EXPECT_EQ(graded["request_id"], "graded-1");
  EXPECT_EQ(graded["problem"], "consonant-anywhere");
  EXPECT_EQ(graded["path"], kGradePath);
}

TEST(AccessLogE2E, TextLinesHoldTheSameFieldsAndNoSecret) {
  std::vector<std::string> secrets;
  const std::vector<std::string> lines = lines_after_secret_traffic("text", secrets);
  ASSERT_EQ(lines.size(), 3u);
  const std::regex logfmt(
      "^time=\\S+ method=\\S+ path=\\S+ status=\\d{3} latency_ms=[0-9.]+ problem=\\S+ "
      "passed=(true|false|-) request_id=[A-Za-z0-9._-]+$");
  for (const std::string& line : lines) {
    EXPECT_TRUE(std::regex_match(line, logfmt)) << line;
    for (const std::string& secret : secrets) {
      EXPECT_EQ(line.find(secret), std::string::npos) << secret << " in " << line;
    }
  }
  EXPECT_NE(lines[0].find(" path=" + kGradePath + " status=200 "), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find(" problem=consonant-anywhere "), std::string::npos) << lines[0];
  EXPECT_TRUE(lines[0].ends_with(" request_id=graded-1")) << lines[0];
}

}  // namespace
}  // namespace headgrader::server

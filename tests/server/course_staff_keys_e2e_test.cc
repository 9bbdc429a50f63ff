// Keys and roles (API.md §7) against the real binaries: `headgrader keys`, keys and roles on
// every kind of route (401 with WWW-Authenticate, 403, staff_disabled), keys re-read on
// SIGHUP, a server without keys or with grading open, and nothing secret in the access log
// (no key, no submission, no query string).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "course_staff_support.h"
#include "headgrader/limits.h"
#include "server_harness.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::kHandoutSolution;

using namespace std::chrono_literals;
using namespace harness;
using course_staff_testing::cli;
using course_staff_testing::KeyedServer;
using course_staff_testing::new_key;
using course_staff_testing::read_file;
using course_staff_testing::within;
using course_staff_testing::Workspace;
using course_staff_testing::write_file;
namespace fs = std::filesystem;

TEST(KeysCommand, AddPrintsTheKeyOnceListShowsNamesAndRolesRemoveForgets) {
  const Workspace w;
  const std::string key = new_key(w, "canvas-prod", "lms");
  EXPECT_EQ(key.size(), 43u);
  new_key(w, "ta", "staff");
  EXPECT_EQ(read_file(w.keys()).find(key), std::string::npos);
  EXPECT_EQ(fs::status(w.keys()).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  int status = -1;
  EXPECT_EQ(cli("keys list --keys " + w.keys().string(), &status), "canvas-prod\tlms\nta\tstaff");
  EXPECT_EQ(status, 0);
  cli("keys add --keys " + w.keys().string() + " --name ta --role lms", &status);
  EXPECT_EQ(status, 2);
  cli("keys add --keys " + w.keys().string() + " --name x --role admin", &status);
  EXPECT_EQ(status, 2);
  cli("keys remove --keys " + w.keys().string() + " --name canvas-prod", &status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(cli("keys list --keys " + w.keys().string()), "ta\tstaff");
  cli("keys remove --keys " + w.keys().string() + " --name canvas-prod", &status);
  EXPECT_EQ(status, 1);
}

TEST_F(KeyedServer, GradingNeedsAKeyAndAnUnknownKeyIsTreatedAsNone) {
  const std::string grade = "/v1/problems/consonant-anywhere/grade";
  for (const std::string& key : {std::string(), std::string("not-a-key"), staff_ + "x"}) {
    const HttpResponse refused = call(port_, "POST", grade, key, kHandoutSolution);
    EXPECT_EQ(refused.result_int(), 401);
    EXPECT_EQ(refused[http::field::www_authenticate], "Bearer");
    EXPECT_EQ(code_of(refused), "unauthorized");
  }
  EXPECT_EQ(call(port_, "POST", grade, lms_, kHandoutSolution).result_int(), 200);
  EXPECT_EQ(call(port_, "POST", grade, staff_, kHandoutSolution).result_int(), 200);
  // Reading problems and health needs no key.
  EXPECT_EQ(call(port_, "GET", "/v1/problems").result_int(), 200);
  EXPECT_EQ(call(port_, "GET", "/v1/problems/first-position").result_int(), 200);
  EXPECT_EQ(call(port_, "GET", "/healthz").result_int(), 200);
}

TEST_F(KeyedServer, StaffRoutesNeedTheStaffRole) {
  const HttpResponse lms = call(port_, "GET", "/v1/problems/status", lms_);
  EXPECT_EQ(lms.result_int(), 403);
  EXPECT_EQ(code_of(lms), "forbidden");
  const HttpResponse none = call(port_, "GET", "/v1/problems/status");
  EXPECT_EQ(none.result_int(), 401);
  EXPECT_EQ(none[http::field::www_authenticate], "Bearer");
  const HttpResponse staff = call(port_, "GET", "/v1/problems/status", staff_);
  ASSERT_EQ(staff.result_int(), 200);
  const Json status = Json::parse(staff.body());
  EXPECT_EQ(status["problems"], 3);
  EXPECT_EQ(status["defects"], Json::array());
  EXPECT_TRUE(status["loaded_at"].get<std::string>().ends_with("Z"));
}

TEST_F(KeyedServer, KeysAndSubmissionsNeverReachTheAccessLog) {
  call(port_, "POST", "/v1/problems/consonant-anywhere/grade", lms_, kHandoutSolution);
  call(port_, "POST", "/v1/problems/consonant-anywhere/grade", "wrong-key", kHandoutSolution);
  const std::string log = server_->stderr_text_when(
      [](const std::string& text) { return std::count(text.begin(), text.end(), '\n') >= 2; });
  EXPECT_EQ(log.find(lms_), std::string::npos);
  EXPECT_EQ(log.find("wrong-key"), std::string::npos);
  EXPECT_EQ(log.find(read_file(w_.keys()).substr(40, 30)), std::string::npos);
  EXPECT_EQ(log.find("W_q"), std::string::npos);
}

TEST_F(KeyedServer, KeysAreReadAgainOnSighup) {
  const std::string grade = "/v1/problems/consonant-anywhere/grade";
  const std::string added = new_key(w_, "moodle", "lms");
  EXPECT_EQ(call(port_, "POST", grade, added, kHandoutSolution).result_int(), 401);
  int status = -1;
  cli("keys remove --keys " + w_.keys().string() + " --name canvas", &status);
  ASSERT_EQ(status, 0);
  server_->signal(SIGHUP);
  EXPECT_TRUE(within(
      2s, [&] { return call(port_, "POST", grade, added, kHandoutSolution).result_int() == 200; }));
  EXPECT_EQ(call(port_, "POST", grade, lms_, kHandoutSolution).result_int(), 401);
}

// No query string of any route reaches the access log, however the path is spelt (%73 for
// 's', the absolute form) and whatever the answer (a 431 or 400 before routing too): queries
// name students.
TEST_F(KeyedServer, NoQueryStringReachesTheAccessLog) {
  const std::string name = "Zelda-Quintavalle";
  const std::string query = "?student=" + name;
  call(port_, "GET", "/v1/%73ubmissions" + query, staff_);
  call(port_, "GET", "http://localhost/v1/submissions" + query, staff_);
  call(port_, "GET", "HTTP://localhost:1/v1/submissions.csv" + query, staff_);
  call(port_, "GET", "/v1/problems/consonant-anywhere/stats" + query, staff_);
  call(port_, "GET", "/v1/submissions%zz" + query, staff_);
  const std::optional<HttpResponse> too_large = exchange_raw(
      port_, "GET /v1/submissions" + query + " HTTP/1.1\r\nHost: localhost\r\nX-Filler: " +
                 std::string(limits::kMaxHeaderBytes * 2, 'f') + "\r\n\r\n");
  ASSERT_TRUE(too_large.has_value());
  EXPECT_EQ(too_large->result_int(), 431);
  const std::string log = server_->stderr_text_when(
      [](const std::string& text) { return std::count(text.begin(), text.end(), '\n') >= 6; });
  EXPECT_GE(std::count(log.begin(), log.end(), '\n'), 6) << log;
  EXPECT_EQ(log.find("student="), std::string::npos) << log;
  EXPECT_EQ(log.find(name), std::string::npos) << log;
  EXPECT_EQ(log.find('?'), std::string::npos) << log;
}

TEST(OpenServer, WithoutKeysGradingIsOpenAndStaffRoutesAreDisabled) {
  ServerProcess server(
      {"--port", "0", "--address", "127.0.0.1", "--problems", HEADGRADER_SOURCE_DIR "/problems"});
  const std::uint16_t port = server.wait_listening();
  EXPECT_EQ(call(port, "POST", "/v1/problems/consonant-anywhere/grade", "", kHandoutSolution)
                .result_int(),
            200);
  for (const auto& [method, target] : std::vector<std::pair<std::string, std::string>>{
           {"GET", "/v1/problems/status"}, {"POST", "/v1/problems/validate"}}) {
    const HttpResponse refused = call(port, method, target, "", method == "POST" ? "{}" : "");
    EXPECT_EQ(refused.result_int(), 403) << target;
    EXPECT_EQ(code_of(refused), "staff_disabled") << target;
  }
  // PUT and DELETE of a problem stay Part 1's wrong methods (API.md §5): 405, GET and HEAD.
  const HttpResponse put = call(port, "DELETE", "/v1/problems/first-position");
  EXPECT_EQ(put.result_int(), 405);
  EXPECT_EQ(put[http::field::allow], "GET, HEAD");
  EXPECT_EQ(Json::parse(put.body())["error"]["message"], "DELETE is not allowed here; use GET");
}

// API.md §7: without --keys a staff route is 403 staff_disabled whatever is sent, a Bearer
// too (not 401: the key is not what is wrong, the server's start is).
TEST(OpenServer, WithoutKeysAStaffRouteIsStaffDisabledEvenWithABearer) {
  ServerProcess server(
      {"--port", "0", "--address", "127.0.0.1", "--problems", HEADGRADER_SOURCE_DIR "/problems"});
  const std::uint16_t port = server.wait_listening();
  for (const auto& [method, target] : std::vector<std::pair<std::string, std::string>>{
           {"GET", "/v1/problems/status"},
           {"POST", "/v1/problems/validate"},
           {"GET", "/v1/submissions"},
           {"GET", "/v1/submissions.csv"},
           {"GET", "/v1/problems/consonant-anywhere/stats"},
           {"GET", "/v1/passback"}}) {
    const HttpResponse refused =
        call(port, method, target, "a-staff-key-of-another-server", method == "POST" ? "{}" : "");
    EXPECT_EQ(refused.result_int(), 403) << target;
    EXPECT_EQ(refused.result_int() == 403 ? code_of(refused) : "", "staff_disabled") << target;
    EXPECT_EQ(refused.count(http::field::www_authenticate), 0U) << target;
  }
}

TEST(OpenServer, KeysWithGradingOpenLetsAnyoneGradeButNotUseStaffRoutes) {
  const Workspace w;
  const std::string staff = new_key(w, "ta", "staff");
  ServerProcess server({"--port", "0", "--address", "127.0.0.1", "--problems",
                        w.problems().string(), "--keys", w.keys().string(), "--grading", "open"});
  const std::uint16_t port = server.wait_listening();
  EXPECT_EQ(call(port, "POST", "/v1/problems/consonant-anywhere/grade", "", kHandoutSolution)
                .result_int(),
            200);
  EXPECT_EQ(call(port, "GET", "/v1/problems/status").result_int(), 401);
  EXPECT_EQ(call(port, "GET", "/v1/problems/status", staff).result_int(), 200);
}

TEST(OpenServer, AnUnreadableKeysFileStopsTheServerAtStart) {
  const Workspace w;
  write_file(w.keys(), "{\"keys\": 3}");
  ServerProcess server(
      {"--port", "0", "--problems", w.problems().string(), "--keys", w.keys().string()});
  const ExitStatus status = server.wait();
  EXPECT_TRUE(status.exited);
  EXPECT_EQ(status.code, 1);
  EXPECT_NE(server.stderr_text().find("not starting"), std::string::npos);
}

}  // namespace
}  // namespace headgrader::server

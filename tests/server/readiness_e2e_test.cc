// GET /readyz against the real server (API.md §17): 503 with the reason while its store cannot
// take gradings and 200 again once it can, without a restart: a SQLite file made unwritable
// and then writable, and a PostgreSQL server of the test's own (initdb and pg_ctl, as
// scripts/with-postgres.sh does, so that stopping it disturbs no other test) stopped and
// started again. /healthz stays 200 throughout: the process is alive.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "operations_support.h"
#include "server_harness.h"
#include "store_test_support.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using namespace harness;
using testing::kProblemsDir;

std::vector<std::string> args_with_store(const std::string& url) {
  return {"--port", "0",          "--address",  "127.0.0.1", "--threads",
          "2",      "--problems", kProblemsDir, "--store",   url};
}

// The status of /readyz once it is `wanted`, or the last one after 10 s (a PostgreSQL server
// takes a moment to stop or start; SQLite answers at once).
unsigned readiness_when(std::uint16_t port, unsigned wanted, std::string* body = nullptr) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  for (;;) {
    const HttpResponse answer = call(port, "GET", "/readyz");
    if (body != nullptr) *body = answer.body();
    if (answer.result_int() == wanted || std::chrono::steady_clock::now() > deadline) {
      return answer.result_int();
    }
    std::this_thread::sleep_for(50ms);
  }
}

TEST(ReadinessE2E, AnUnwritableSqliteStoreIs503UntilItIsWritableAgain) {
  const std::filesystem::path dir = testing::empty_folder("readyz-sqlite");
  const std::filesystem::path file = dir / "h.db";
  ServerProcess server(args_with_store("sqlite:" + file.string()));
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);
  EXPECT_EQ(readiness_when(port, 200), 200u);

  ASSERT_EQ(::chmod(file.c_str(), 0444), 0);
  std::string body;
  EXPECT_EQ(readiness_when(port, 503, &body), 503u);
  const Json refused = Json::parse(body);
  EXPECT_EQ(refused["ready"], false);
  EXPECT_NE(refused["reason"].get<std::string>().find("cannot be written"), std::string::npos)
      << body;
  EXPECT_EQ(call(port, "GET", "/healthz").result_int(), 200u) << "alive, though not ready";

  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  EXPECT_EQ(readiness_when(port, 200, &body), 200u);
  EXPECT_EQ(body, R"({"ready":true})");

  // Replaced by another file: a grading would land in a file no restart reads.
  std::filesystem::rename(file, dir / "old.db");
  std::filesystem::copy_file(dir / "old.db", file);
  EXPECT_EQ(readiness_when(port, 503, &body), 503u);
  EXPECT_NE(body.find("deleted or replaced"), std::string::npos) << body;
  std::filesystem::rename(dir / "old.db", file);
  EXPECT_EQ(readiness_when(port, 200), 200u);
  std::filesystem::remove_all(dir);
}

// A PostgreSQL server of this test's own, on a free loopback port, run as `nobody` when the
// tests run as root (initdb refuses root), as scripts/with-postgres.sh does.
class OwnPostgres {
 public:
  static constexpr const char* kBin = "/usr/lib/postgresql/15/bin";

  static bool available() { return ::access((std::string(kBin) + "/initdb").c_str(), X_OK) == 0; }

  OwnPostgres() {
    dir_ = testing::empty_folder("readyz-pg");
    as_user_ = ::geteuid() == 0 ? "runuser -u nobody -- " : "";
    user_ =
        ::geteuid() == 0 ? "nobody" : std::string(std::getenv("USER") ? std::getenv("USER") : "");
    if (::geteuid() == 0) shell("chown nobody " + dir_.string());
    ::chmod(dir_.c_str(), 0700);
    port_ = free_port();
    ok_ = shell("cd " + dir_.string() + " && " + as_user_ + kBin + "/initdb -D " + data() + " -U " +
                user_ + " -A trust -E UTF8 --no-locale > " + dir_.string() + "/initdb.log 2>&1") &&
          start();
  }
  ~OwnPostgres() {
    shell(as_user_ + kBin + "/pg_ctl -D " + data() + " -m immediate -w stop > /dev/null 2>&1");
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  bool ok() const { return ok_; }
  std::string url() const {
    return "postgresql://" + user_ + "@127.0.0.1:" + std::to_string(port_) + "/postgres";
  }
  bool start() {
    return shell("cd " + dir_.string() + " && " + as_user_ + kBin + "/pg_ctl -D " + data() +
                 " -l " + dir_.string() +
                 "/server.log -w -t 30 -o \"-c listen_addresses=127.0.0.1 "
                 "-c port=" +
                 std::to_string(port_) + " -c unix_socket_directories=" + dir_.string() +
                 "\" start > /dev/null");
  }
  bool stop() {
    return shell(as_user_ + kBin + "/pg_ctl -D " + data() + " -m fast -w stop > /dev/null");
  }

 private:
  static bool shell(const std::string& command) { return std::system(command.c_str()) == 0; }
  static std::uint16_t free_port() {
    net::io_context ioc;
    tcp::acceptor acceptor(ioc, tcp::endpoint(net::ip::address_v4::loopback(), 0));
    return acceptor.local_endpoint().port();
  }
  std::string data() const { return dir_.string() + "/data"; }

  std::filesystem::path dir_;
  std::string as_user_, user_;
  std::uint16_t port_ = 0;
  bool ok_ = false;
};

TEST(ReadinessE2E, APostgresqlServerStoppedIs503UntilItIsStartedAgain) {
  if (!OwnPostgres::available()) {
    if (store::testing::postgres_required()) FAIL() << "no initdb in " << OwnPostgres::kBin;
    GTEST_SKIP() << "no PostgreSQL 15 binaries in " << OwnPostgres::kBin;
  }
  OwnPostgres postgres;
  ASSERT_TRUE(postgres.ok()) << "initdb or pg_ctl start failed";
  ServerProcess server(args_with_store(postgres.url()));
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);
  EXPECT_EQ(readiness_when(port, 200), 200u);

  ASSERT_TRUE(postgres.stop());
  std::string body;
  EXPECT_EQ(readiness_when(port, 503, &body), 503u);
  EXPECT_EQ(Json::parse(body)["ready"], false);
  EXPECT_NE(Json::parse(body)["reason"].get<std::string>().find("the store: "), std::string::npos)
      << body;
  EXPECT_EQ(call(port, "GET", "/healthz").result_int(), 200u) << "alive, though not ready";

  ASSERT_TRUE(postgres.start());
  EXPECT_EQ(readiness_when(port, 200, &body), 200u) << body;
  // The committer's own connection learns of the restart when it next writes: that one
  // grading is 503 store_unavailable (never a grade that was not kept), the next is kept.
  unsigned graded = 0;
  for (int attempt = 0; attempt < 3 && graded != 200; ++attempt) {
    graded = call(port, "POST", testing::kGradePath, "", testing::kHandoutSolution).result_int();
  }
  EXPECT_EQ(graded, 200u) << "the store is back for gradings too";
}

}  // namespace
}  // namespace headgrader::server

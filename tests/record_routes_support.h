// What the end-to-end tests of the record's staff routes (API.md §8,
// tests/server/record_*_e2e_test.cc) share: their fixture RecordRoutes (a folder of problems,
// keys made by `headgrader keys`, a database of each backend, the real server started on
// them), a shell command's output, and a GET whose answer may be of any size.
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/none.hpp>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "server_harness.h"
#include "sqlite/sqlite_connection.h"
#include "store_test_support.h"
#include "test_support.h"

namespace headgrader::server::record_routes_testing {

using namespace harness;
using store::testing::Backend;
using store::testing::TestDatabase;
namespace fs = std::filesystem;

inline std::string shell(const std::string& command, int* status = nullptr) {
  FILE* pipe = ::popen((command + " 2>/dev/null").c_str(), "r");
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  const int raw = ::pclose(pipe);
  if (status != nullptr) *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  if (out.ends_with('\n')) out.pop_back();
  return out;
}

// GET `target` with no bound on the answer's size (an export of every record is larger than
// the client's parser takes by default) and a minute's patience.
inline HttpResponse get_whole(std::uint16_t port, const std::string& target,
                              const std::string& key) {
  net::io_context ioc;
  tcp::socket socket(ioc);
  socket.connect(tcp::endpoint(net::ip::address_v4::loopback(), port));
  timeval timeout{60, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  http::request<http::empty_body> request{http::verb::get, target, 11};
  request.set(http::field::host, "localhost");
  request.set(http::field::authorization, "Bearer " + key);
  http::write(socket, request);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(boost::none);
  http::read(socket, buffer, parser);
  return parser.release();
}

// A database of the parameter's backend and a folder of its own for each test; the server is
// started by the test (start()), with its flags. Instantiated once for both backends, in
// tests/server/record_routes_e2e_test.cc (a second instantiation would run every test twice).
class RecordRoutes : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    db_ = TestDatabase::make(GetParam());
    if (!db_) {
      if (HasFailure()) return;
      GTEST_SKIP() << "HEADGRADER_TEST_POSTGRES is not set: run under scripts/with-postgres.sh";
    }
    root_ = fs::temp_directory_path() /
            ("headgrader-records-" + std::to_string(::getpid()) + "-" +
             std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             std::to_string(counter_++));
    fs::remove_all(root_);
    fs::create_directories(root_ / "problems");
    for (const char* id : {"consonant-anywhere", "consonant-proportion"}) {
      fs::copy_file(fs::path(HEADGRADER_SOURCE_DIR "/problems") / (std::string(id) + ".json"),
                    root_ / "problems" / (std::string(id) + ".json"));
    }
    const std::string keys = (root_ / "keys.json").string();
    const std::string cli = HEADGRADER_CLI_BIN;
    staff_ = shell(cli + " keys add --keys " + keys + " --name ta --role staff");
    lms_ = shell(cli + " keys add --keys " + keys + " --name canvas --role lms");
    moodle_ = shell(cli + " keys add --keys " + keys + " --name moodle --role lms");
    ASSERT_EQ(staff_.size(), 43u);
  }
  void TearDown() override {
    server_.reset();
    std::error_code ignored;
    if (!root_.empty()) fs::remove_all(root_, ignored);
  }
  std::uint16_t start(std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"--port",     "0",
                                     "--address",  "127.0.0.1",
                                     "--problems", (root_ / "problems").string(),
                                     "--keys",     (root_ / "keys.json").string(),
                                     "--store",    db_->url()};
    args.insert(args.end(), more.begin(), more.end());
    server_ = std::make_unique<ServerProcess>(args);
    return server_->wait_listening();
  }
  HttpResponse grade(std::uint16_t port, const std::string& body,
                     const std::vector<std::string>& headers = {}) {
    return call(port, "POST", headgrader::testing::kGradePath, lms_, body, headers);
  }

  // The CSV of every record as its pages of 1 000 (limit, X-Next-Cursor) give it: the header
  // once, then each page's rows.
  std::string paged_export(std::uint16_t port) {
    std::string paged =
        "id,time,problem,student,key,passed,score,tests_total,tests_failed,mistakes\r\n";
    std::string cursor;
    for (;;) {
      const HttpResponse page = get_whole(
          port, "/v1/submissions.csv?limit=1000" + (cursor.empty() ? "" : "&cursor=" + cursor),
          staff_);
      EXPECT_EQ(page.result(), http::status::ok);
      if (page.result() != http::status::ok) return paged;
      paged += page.body().substr(page.body().find("\r\n") + 2);
      cursor = std::string(page["X-Next-Cursor"]);
      if (cursor.empty()) return paged;
    }
  }

  // `copies` copies of the record's one row, each with an id of its own, written with SQL.
  void copy_the_record(int copies) {
    auto raw = store::SqliteConnection::open(db_->folder() / "store.db");
    ASSERT_TRUE(raw) << raw.error().message;
    auto columns = (*raw)->query("SELECT name FROM pragma_table_info('submissions')", {});
    ASSERT_TRUE(columns) << columns.error().message;
    std::string names, values;
    for (const auto& row : *columns) {
      const std::string name = *row[0];
      names += (names.empty() ? "" : ",") + name;
      values += values.empty() ? "" : ",";
      values += name == "id"        ? "substr(id, 1, 12) || printf('%016x', n)"
                : name == "student" ? "'s' || (n % 5000)"
                                    : name;
    }
    ASSERT_TRUE((*raw)->exec_script(
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < " +
        std::to_string(copies) + ") INSERT INTO submissions (" + names + ") SELECT " + values +
        " FROM submissions, c"));
  }

  static inline int counter_ = 0;
  std::unique_ptr<TestDatabase> db_;
  fs::path root_;
  std::string staff_, lms_, moodle_;
  std::unique_ptr<ServerProcess> server_;
};

}  // namespace headgrader::server::record_routes_testing

// Fresh, empty databases for the store's tests: a SQLite file in a temporary folder, or a new
// database on the PostgreSQL server that scripts/with-postgres.sh started (its URL in
// HEADGRADER_TEST_POSTGRES). Without that variable the PostgreSQL tests skip, saying why;
// with it (or with HEADGRADER_REQUIRE_POSTGRES=1, as CI sets), a server that cannot be reached
// fails them. And what the tests of the store interface (tests/store/store_*_test.cc) share:
// a record to commit, a commit waited for, and their fixture StoreTest.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "postgres/postgres_connection.h"
#include "sqlite/sqlite_connection.h"
#include "submission_store.h"

namespace headgrader::store::testing {

enum class Backend { kSqlite, kPostgres };

inline std::string backend_name(Backend backend) {
  return backend == Backend::kSqlite ? "Sqlite" : "Postgres";
}

inline const char* postgres_admin_url() { return std::getenv("HEADGRADER_TEST_POSTGRES"); }

inline bool postgres_required() {
  const char* required = std::getenv("HEADGRADER_REQUIRE_POSTGRES");
  return required != nullptr && std::string(required) == "1";
}

// A database that exists while this object does.
class TestDatabase {
 public:
  // nullopt (with a skip or a failure recorded) when the backend cannot be had here.
  static std::unique_ptr<TestDatabase> make(Backend backend) {
    static std::atomic<int> counter{0};
    const std::string name =
        "hg_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
    auto db = std::unique_ptr<TestDatabase>(new TestDatabase);
    db->backend_ = backend;
    if (backend == Backend::kSqlite) {
      db->folder_ = std::filesystem::temp_directory_path() / name;
      std::filesystem::create_directories(db->folder_);
      db->url_ = "sqlite:" + (db->folder_ / "store.db").string();
      return db;
    }
    const char* admin = postgres_admin_url();
    if (admin == nullptr) {
      if (postgres_required()) {
        ADD_FAILURE() << "HEADGRADER_REQUIRE_POSTGRES=1 but HEADGRADER_TEST_POSTGRES is not set";
      }
      return nullptr;
    }
    auto connection = PostgresConnection::open(admin);
    if (!connection) {
      ADD_FAILURE() << "HEADGRADER_TEST_POSTGRES is set but PostgreSQL cannot be reached: "
                    << connection.error().message;
      return nullptr;
    }
    if (auto created = (*connection)->exec_script("CREATE DATABASE " + name); !created) {
      ADD_FAILURE() << created.error().message;
      return nullptr;
    }
    db->admin_ = admin;
    db->name_ = name;
    // The admin URL with this database's name in place of its own.
    std::string url = admin;
    url = url.substr(0, url.rfind('/') + 1) + name;
    db->url_ = url;
    return db;
  }

  ~TestDatabase() {
    std::error_code ignored;
    if (!folder_.empty()) std::filesystem::remove_all(folder_, ignored);
    if (!name_.empty()) {
      if (auto connection = PostgresConnection::open(admin_)) {
        (void)(*connection)->exec_script("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
      }
    }
  }

  const std::string& url() const { return url_; }
  Backend backend() const { return backend_; }
  const std::filesystem::path& folder() const { return folder_; }
  // A connection to the database itself (not a store), to read or break what a store holds.
  Result<std::unique_ptr<SqlConnection>> connect() const {
    return backend_ == Backend::kSqlite ? SqliteConnection::open(folder_ / "store.db")
                                        : PostgresConnection::open(url_);
  }

 private:
  TestDatabase() = default;
  Backend backend_ = Backend::kSqlite;
  std::string url_;
  std::filesystem::path folder_;  // SQLite
  std::string admin_, name_;      // PostgreSQL
};

// Skips the test (or records why it cannot run) when the backend is not available.
#define HEADGRADER_NEED_DATABASE(db, backend)                                             \
  auto db = ::headgrader::store::testing::TestDatabase::make(backend);                    \
  if (!db) {                                                                              \
    if (::testing::Test::HasFailure()) return;                                            \
    GTEST_SKIP() << "HEADGRADER_TEST_POSTGRES is not set: run under "                     \
                    "scripts/with-postgres.sh (scripts/test.sh does) to test PostgreSQL"; \
  }

// A store opened on a fresh database of the parameter's backend for each test, closed after
// it; PostgreSQL's skip when no server was started for the tests.
class OpenStoreTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    db_ = TestDatabase::make(GetParam());
    if (!db_) {
      if (HasFailure()) return;
      GTEST_SKIP() << "HEADGRADER_TEST_POSTGRES is not set: run under scripts/with-postgres.sh "
                      "(scripts/test.sh does) to test PostgreSQL";
    }
    auto opened = open_store(db_->url());
    ASSERT_TRUE(opened) << opened.error().message;
    store_ = std::move(opened).value();
  }
  void TearDown() override {
    if (store_) store_->close();
    store_.reset();
    db_.reset();
  }

  std::unique_ptr<TestDatabase> db_;
  std::unique_ptr<SubmissionStore> store_;
};

inline constexpr TimeMs kT0 = 1'796'000'000'000;  // 2026-11-30T…, a fixed start for every test

inline SubmissionRecord make_record(TimeMs time, std::string problem,
                                    std::optional<std::string> student, bool passed = false,
                                    std::int64_t tests_passed = 0) {
  SubmissionRecord r;
  r.id = new_submission_id(time);
  r.time = time;
  r.problem = std::move(problem);
  r.problem_sha256 = std::string(64, 'a');
  r.student = std::move(student);
  r.key = "canvas";
  r.body = R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})";
  r.passed = passed;
  r.tests_total = 10;
  r.tests_passed = passed ? 10 : tests_passed;
  r.tests_failed = r.tests_total - r.tests_passed;
  r.score = static_cast<double>(r.tests_passed) / 10.0;
  r.answer = R"({"problem":")" + r.problem + R"(","submission_id":")" + r.id + "\"}";
  return r;
}

// commit(), waited for.
inline Result<CommitOutcome> commit_now(SubmissionStore& store, SubmissionRecord record,
                                        std::optional<PassbackRequest> passback = std::nullopt) {
  std::promise<Result<CommitOutcome>> promise;
  auto future = promise.get_future();
  store.commit(std::move(record), std::move(passback), [&promise](Result<CommitOutcome> outcome) {
    promise.set_value(std::move(outcome));
  });
  return future.get();
}

// The store interface's tests, whatever their file: instantiated once for both backends, in
// tests/store/store_backends_test.cc (a second instantiation would run every one twice).
class StoreTest : public OpenStoreTest {
 protected:
  std::unique_ptr<SubmissionStore> reopen() {
    auto opened = open_store(db_->url());
    EXPECT_TRUE(opened) << opened.error().message;
    return opened ? std::move(opened).value() : nullptr;
  }

  SubmissionRecord commit_ok(SubmissionRecord record) {
    auto outcome = commit_now(*store_, record);
    EXPECT_TRUE(outcome) << outcome.error().message;
    if (outcome) {
      EXPECT_TRUE(outcome->inserted);
    }
    return record;
  }
};

}  // namespace headgrader::store::testing

// The submission record's store against the real headgrader-server binary (API.md §8): the
// default store and --store none, a store that cannot be opened or is deleted, 503 when the
// store fails, and durability: kill -9 amid many gradings, then every answered submission_id
// is in the store (SQLite and PostgreSQL). The Idempotency-Key: idempotency_key_e2e_test.cc;
// attempt limits: attempt_limit_e2e_test.cc.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server_harness.h"
#include "store_e2e_support.h"
#include "store_test_support.h"
#include "submission_store.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::kGradePath;
using testing::kHandoutSolution;
using testing::kProblemsDir;
using testing::kWrongKey;
using testing::with_student;

using namespace harness;
using store::testing::Backend;
using store::testing::TestDatabase;
using store_e2e_testing::engine_answer;
using store_e2e_testing::open_or_fail;
using store_e2e_testing::post;
using store_e2e_testing::raw_connection;
using store_e2e_testing::server_args;
using store_e2e_testing::StoreBackendE2E;
using store_e2e_testing::submission_id_of;

TEST(StoreE2E, TheDefaultStoreIsAFileInTheWorkingDirectoryAndAnswersGainTheirId) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("headgrader-default-store-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  {
    ServerProcess server({"--port", "0", "--address", "127.0.0.1", "--problems", kProblemsDir},
                         StderrTo::kFile, dir, /*store_none=*/false);
    const std::uint16_t port = server.wait_listening();
    ASSERT_NE(port, 0);
    Client client(port);
    const HttpResponse answer = post(client, kGradePath, kHandoutSolution);
    ASSERT_EQ(answer.result(), http::status::ok) << answer.body();
    const std::string id = submission_id_of(answer);
    ASSERT_EQ(id.size(), 28u);
    // Part 1's answer byte for byte, then "submission_id" as the last key.
    const std::string part1 = engine_answer(kHandoutSolution);
    EXPECT_EQ(answer.body(),
              part1.substr(0, part1.size() - 1) + ",\"submission_id\":\"" + id + "\"}");
    server.signal(SIGTERM);
    EXPECT_EQ(server.wait().code, 0);
    EXPECT_EQ(server.stderr_text().find("W_q"), std::string::npos);  // the record is not logged
  }
  ASSERT_TRUE(std::filesystem::exists(dir / "headgrader.db"));
  auto store = open_or_fail("sqlite:" + (dir / "headgrader.db").string());
  ASSERT_TRUE(store);
  auto page = store->list({});
  ASSERT_TRUE(page);
  ASSERT_EQ(page->records.size(), 1u);
  EXPECT_TRUE(page->records[0].passed);
  store->close();
  std::filesystem::remove_all(dir);
}

TEST(StoreE2E, StoreNoneAnswersPartOneExactly) {
  ServerProcess server(server_args("none"));
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);
  Client client(port);
  const HttpResponse answer = post(client, kGradePath, kWrongKey, {{"Idempotency-Key", "k"}});
  ASSERT_EQ(answer.result(), http::status::ok);
  EXPECT_EQ(answer.body(), engine_answer(kWrongKey));
}

TEST(StoreE2E, AStoreThatCannotBeOpenedStopsTheServerWithTheReason) {
  ServerProcess missing_folder(server_args("sqlite:/nonexistent-headgrader/x.db"));
  EXPECT_EQ(missing_folder.wait().code, 1);
  EXPECT_NE(missing_folder.stderr_text().find("/nonexistent-headgrader does not exist"),
            std::string::npos)
      << missing_folder.stderr_text();
  ServerProcess unreachable(server_args("postgresql://u:hunter2@127.0.0.1:1/db"));
  EXPECT_EQ(unreachable.wait().code, 1);
  const std::string said = unreachable.stderr_text();
  EXPECT_NE(said.find("cannot connect to PostgreSQL"), std::string::npos) << said;
  EXPECT_EQ(said.find("hunter2"), std::string::npos);
  ServerProcess scheme(server_args("mysql://x"));
  EXPECT_EQ(scheme.wait().code, 1);
  ServerProcess limit_without_store(server_args("none", {"--rate-limit", "5/10m"}));
  EXPECT_EQ(limit_without_store.wait().code, 2);
  ServerProcess bad_limit(server_args("none", {"--rate-limit", "5/10x"}));
  EXPECT_EQ(bad_limit.wait().code, 2);
  EXPECT_NE(bad_limit.stderr_text().find("30/1h"), std::string::npos);
}

// Removed while serving (the file, its WAL and its shared memory), the store would keep every
// grading in a deleted file: each must be answered 503, no empty file may appear at the path,
// and after a restart every grading answered 200 is there.
TEST(StoreE2E, ADeletedSqliteStoreAnswers503AndNeverAGradingItDoesNotKeep) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("headgrader-deleted-store-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path file = dir / "h.db";
  const std::string url = "sqlite:" + file.string();
  std::vector<std::string> answered_after_removal;
  {
    ServerProcess server(server_args(url));
    const std::uint16_t port = server.wait_listening();
    ASSERT_NE(port, 0);
    Client client(port);
    ASSERT_EQ(post(client, kGradePath, kHandoutSolution).result(), http::status::ok);
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(file.string() + suffix);
    for (int i = 0; i < 6; ++i) {
      // Half on the same connection, half on new ones.
      std::optional<Client> fresh;
      if (i % 2 == 1) fresh.emplace(port);
      const HttpResponse answer =
          post(fresh ? *fresh : client, kGradePath,
               with_student(i % 2 ? kWrongKey : kHandoutSolution, "s" + std::to_string(i)));
      if (answer.result() == http::status::ok) {
        answered_after_removal.push_back(submission_id_of(answer));
        continue;
      }
      EXPECT_EQ(answer.result(), http::status::service_unavailable) << answer.body();
      EXPECT_EQ(error_of(answer)["code"], "store_unavailable") << answer.body();
      EXPECT_NE(error_of(answer)["message"].get<std::string>().find("deleted or replaced"),
                std::string::npos)
          << answer.body();
    }
    EXPECT_TRUE(answered_after_removal.empty())
        << answered_after_removal.size() << " gradings answered 200 into the deleted file";
    EXPECT_FALSE(fs::exists(file)) << "a connection created a new, empty store at the path";
    server.signal(SIGTERM);
    server.wait();
  }
  {
    ServerProcess again(server_args(url));  // a new file at the path, from empty
    const std::uint16_t port = again.wait_listening();
    ASSERT_NE(port, 0);
    auto store = open_or_fail(url);
    ASSERT_TRUE(store);
    for (const std::string& id : answered_after_removal) {
      auto found = store->get(id);
      ASSERT_TRUE(found) << found.error().message;
      EXPECT_TRUE(found->has_value()) << id << " was answered 200 and is not kept";
    }
    store->close();
    Client client(port);
    EXPECT_EQ(post(client, kGradePath, kHandoutSolution).result(), http::status::ok);
  }
  fs::remove_all(dir);
}

TEST_P(StoreBackendE2E, AFailingStoreIsAnswered503AndNothingIsGraded) {
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  auto raw = raw_connection(*db_);
  ASSERT_TRUE(raw);
  const bool pg = GetParam() == Backend::kPostgres;
  ASSERT_TRUE(raw->exec_script(
      pg ? "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'disk is "
           "full'; END $$ LANGUAGE plpgsql; CREATE TRIGGER refuse BEFORE INSERT ON submissions "
           "FOR EACH ROW EXECUTE FUNCTION refuse()"
         : "CREATE TRIGGER refuse BEFORE INSERT ON submissions BEGIN SELECT RAISE(FAIL, 'disk "
           "is full'); END"));
  Client client(port);
  const HttpResponse refused = post(client, kGradePath, kHandoutSolution);
  EXPECT_EQ(refused.result(), http::status::service_unavailable);
  EXPECT_EQ(error_of(refused)["code"], "store_unavailable");
  EXPECT_NE(error_of(refused)["message"].get<std::string>().find("disk is full"),
            std::string::npos);
  ASSERT_TRUE(raw->exec_script(pg ? "DROP TRIGGER refuse ON submissions" : "DROP TRIGGER refuse"));
  const HttpResponse kept = post(client, kGradePath, kHandoutSolution);
  EXPECT_EQ(kept.result(), http::status::ok);
  auto rows = raw->query("SELECT COUNT(*) FROM submissions", {});
  ASSERT_TRUE(rows);
  EXPECT_EQ(*rows->front()[0], "1");
}

// Many gradings from several connections; the server is killed (SIGKILL) while they run.
// Every grading that was answered 200 must be in the store afterwards.
TEST_P(StoreBackendE2E, EveryAnsweredGradingSurvivesKillNine) {
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  std::mutex mutex;
  std::vector<std::string> answered;
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      try {
        Client client(port);
        for (int i = 0; !stop; ++i) {
          const HttpResponse answer =
              post(client, kGradePath,
                   with_student(i % 2 ? kWrongKey : kHandoutSolution, "s" + std::to_string(t)));
          if (answer.result() != http::status::ok) continue;
          const std::lock_guard lock(mutex);
          answered.push_back(submission_id_of(answer));
        }
      } catch (const std::exception&) {
        // the server died under this connection: what it answered is already counted
      }
    });
  }
  for (int waited = 0; waited < 1000; ++waited) {
    {
      const std::lock_guard lock(mutex);
      if (answered.size() >= 300) break;
    }
    std::this_thread::sleep_for(10ms);
  }
  servers_.back()->signal(SIGKILL);
  stop = true;
  for (auto& thread : threads) thread.join();
  servers_.back()->wait();
  ASSERT_GE(answered.size(), 100u);

  const std::uint16_t again = start();  // the same store, after the crash
  ASSERT_NE(again, 0);
  auto store = open_or_fail(db_->url());
  ASSERT_TRUE(store);
  std::size_t missing = 0;
  for (const std::string& id : answered) {
    auto found = store->get(id);
    ASSERT_TRUE(found) << found.error().message;
    if (!found->has_value()) ++missing;
  }
  EXPECT_EQ(missing, 0u) << "of " << answered.size() << " answered gradings";
  Client client(again);
  EXPECT_EQ(post(client, kGradePath, kHandoutSolution).result(), http::status::ok);
  store->close();
}

// StoreBackendE2E's tests, in this file and its neighbours named in store_e2e_support.h, on
// both backends: here, once.
INSTANTIATE_TEST_SUITE_P(Backends, StoreBackendE2E,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) { return store::testing::backend_name(info.param); });

}  // namespace
}  // namespace headgrader::server

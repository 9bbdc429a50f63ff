// Attempt limits against the real server, on SQLite and PostgreSQL (API.md §8): 429 with
// Retry-After per student and problem, held for gradings sent together (counted again where
// the record is committed) and across servers on one database.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <optional>
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

TEST_P(StoreBackendE2E, AttemptLimitAnswers429WithRetryAfterPerStudentAndProblem) {
  const std::uint16_t port = start({"--rate-limit", "2/1h"});
  ASSERT_NE(port, 0);
  Client client(port);
  const std::string ada = with_student(kWrongKey, "ada");
  EXPECT_EQ(post(client, kGradePath, ada).result(), http::status::ok);
  EXPECT_EQ(post(client, kGradePath, ada).result(), http::status::ok);
  const HttpResponse limited = post(client, kGradePath, ada);
  ASSERT_EQ(limited.result(), http::status::too_many_requests) << limited.body();
  EXPECT_EQ(error_of(limited)["code"], "rate_limited");
  const int retry_after = std::stoi(std::string(limited[http::field::retry_after]));
  EXPECT_GE(retry_after, 3590);
  EXPECT_LE(retry_after, 3600);
  const std::string message = error_of(limited)["message"];
  EXPECT_NE(message.find("the next grading is allowed at 20"), std::string::npos) << message;
  EXPECT_NE(message.find("in " + std::to_string(retry_after) + " seconds"), std::string::npos)
      << message;
  // Another student, another problem and gradings without a student are not limited by it.
  EXPECT_EQ(post(client, kGradePath, with_student(kWrongKey, "bob")).result(), http::status::ok);
  const std::string proportion =
      R"({"W_q": [[0, 0]], "W_k": [[0, 0]], "W_V": [[1, 0], [0, 1]], "student": "ada"})";
  EXPECT_EQ(post(client, "/v1/problems/consonant-proportion/grade", proportion).result(),
            http::status::ok);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(post(client, kGradePath, kWrongKey).result(), http::status::ok);
  }
}

// The limit is counted again where the record is committed: gradings sent together, each
// counted before grading while none of the others had been kept, are not all kept.
TEST_P(StoreBackendE2E, AttemptLimitHoldsForGradingsSentTogether) {
  const std::uint16_t port = start({"--rate-limit", "3/1h"});
  ASSERT_NE(port, 0);
  constexpr int kGradings = 30;
  std::vector<int> statuses(kGradings);
  std::vector<std::string> retry_after(kGradings);
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  for (int t = 0; t < kGradings; ++t) {
    threads.emplace_back([&, t] {
      Client client(port);
      ready.fetch_add(1);
      while (ready.load() < kGradings) std::this_thread::yield();
      const HttpResponse answer = post(client, kGradePath, with_student(kWrongKey, "ada"));
      statuses[static_cast<std::size_t>(t)] = answer.result_int();
      retry_after[static_cast<std::size_t>(t)] = std::string(answer[http::field::retry_after]);
    });
  }
  for (auto& thread : threads) thread.join();
  int ok = 0, limited = 0;
  for (int t = 0; t < kGradings; ++t) {
    const auto i = static_cast<std::size_t>(t);
    if (statuses[i] == 200) ++ok;
    if (statuses[i] == 429) {
      ++limited;
      EXPECT_FALSE(retry_after[i].empty());
    }
  }
  EXPECT_EQ(ok, 3);
  EXPECT_EQ(limited, kGradings - 3);
  auto store = open_or_fail(db_->url());
  auto page = store->list({});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->records.size(), 3u);
  store->close();
}

// Two servers on one PostgreSQL count the same records: together they keep no more than one
// would.
TEST_P(StoreBackendE2E, AttemptLimitHoldsAcrossServersOnOneDatabase) {
  if (GetParam() == Backend::kSqlite) {
    GTEST_SKIP() << "several servers share PostgreSQL; one SQLite file is one server's";
  }
  const std::uint16_t a = start({"--rate-limit", "3/1h"}), b = start({"--rate-limit", "3/1h"});
  ASSERT_NE(a, 0);
  ASSERT_NE(b, 0);
  constexpr int kGradings = 20;
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kGradings; ++t) {
    threads.emplace_back([&, t] {
      Client client(t % 2 == 0 ? a : b);
      if (post(client, kGradePath, with_student(kWrongKey, "ada")).result() == http::status::ok) {
        ok.fetch_add(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(ok.load(), 3);
  auto store = open_or_fail(db_->url());
  auto page = store->list({});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->records.size(), 3u);
  store->close();
}

}  // namespace
}  // namespace headgrader::server

// The Idempotency-Key against the real server, on SQLite and PostgreSQL (API.md §8): a replay
// gets the first answer and another body is refused, another problem's grade is never
// replayed, and two servers racing on one key keep one record and give one answer.
#include <gtest/gtest.h>

#include <atomic>
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

TEST_P(StoreBackendE2E, AnIdempotencyKeyReplaysTheFirstAnswerAndRefusesAnotherBody) {
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  Client client(port);
  const HttpResponse first = post(client, kGradePath, kWrongKey, {{"Idempotency-Key", "try-1"}});
  ASSERT_EQ(first.result(), http::status::ok) << first.body();
  const HttpResponse again = post(client, kGradePath, kWrongKey, {{"Idempotency-Key", "try-1"}});
  EXPECT_EQ(again.result(), http::status::ok);
  EXPECT_EQ(again.body(), first.body());
  const HttpResponse other =
      post(client, kGradePath, kHandoutSolution, {{"Idempotency-Key", "try-1"}});
  EXPECT_EQ(other.result(), http::status::conflict);
  EXPECT_EQ(error_of(other)["code"], "idempotency_conflict");
  const HttpResponse fresh =
      post(client, kGradePath, kHandoutSolution, {{"Idempotency-Key", "try-2"}});
  EXPECT_EQ(fresh.result(), http::status::ok);
  EXPECT_NE(submission_id_of(fresh), submission_id_of(first));

  for (const std::string& bad :
       {std::string(201, 'k'), std::string("has space"), std::string("caf\xc3\xa9")}) {
    const HttpResponse refused =
        post(client, kGradePath, kHandoutSolution, {{"Idempotency-Key", bad}});
    EXPECT_EQ(refused.result(), http::status::bad_request) << bad;
    EXPECT_NE(error_of(refused)["message"].get<std::string>().find("1 to 200 visible ASCII"),
              std::string::npos);
  }
  auto store = open_or_fail(db_->url());
  auto page = store->list({});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->records.size(), 2u);
  store->close();
}

TEST_P(StoreBackendE2E, AnIdempotencyKeyNeverReplaysAnotherProblemsGrade) {
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  Client client(port);
  const std::string body = with_student(kWrongKey, "ada");
  const HttpResponse first = post(client, kGradePath, body, {{"Idempotency-Key", "same"}});
  ASSERT_EQ(first.result(), http::status::ok) << first.body();
  // Long and short gradings look the key up at different places (before grading, or where
  // the record is committed): a student-less body and one with a student both cross over.
  for (const std::string& other : {body, kWrongKey}) {
    const HttpResponse crossed = post(client, "/v1/problems/consonant-proportion/grade", other,
                                      {{"Idempotency-Key", "same"}});
    EXPECT_EQ(crossed.result(), http::status::conflict) << crossed.body();
    EXPECT_EQ(error_of(crossed)["code"], "idempotency_conflict");
    EXPECT_NE(error_of(crossed)["message"].get<std::string>().find("consonant-anywhere"),
              std::string::npos)
        << crossed.body();
  }
  // The same problem still replays.
  const HttpResponse again = post(client, kGradePath, body, {{"Idempotency-Key", "same"}});
  EXPECT_EQ(again.result(), http::status::ok);
  EXPECT_EQ(again.body(), first.body());
  auto store = open_or_fail(db_->url());
  auto page = store->list({});
  ASSERT_TRUE(page);
  ASSERT_EQ(page->records.size(), 1u);
  EXPECT_EQ(page->records[0].problem, "consonant-anywhere");
  store->close();
}

TEST_P(StoreBackendE2E, TwoServersRacingOnOneKeyKeepOneRecordAndGiveOneAnswer) {
  if (GetParam() == Backend::kSqlite) {
    GTEST_SKIP() << "several servers share PostgreSQL; one SQLite file is one server's";
  }
  const std::uint16_t a = start(), b = start();
  ASSERT_NE(a, 0);
  ASSERT_NE(b, 0);
  constexpr int kThreads = 8;
  std::vector<std::string> bodies(kThreads);
  std::vector<int> statuses(kThreads);
  std::vector<std::thread> threads;
  for (int round = 0; round < 5; ++round) {
    const std::string key = "race-" + std::to_string(round);
    threads.clear();
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        Client client(t % 2 == 0 ? a : b);
        const HttpResponse answer =
            post(client, kGradePath, with_student(kWrongKey, "ada"), {{"Idempotency-Key", key}});
        statuses[static_cast<std::size_t>(t)] = answer.result_int();
        bodies[static_cast<std::size_t>(t)] = answer.body();
      });
    }
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) {
      EXPECT_EQ(statuses[static_cast<std::size_t>(t)], 200) << bodies[static_cast<std::size_t>(t)];
      EXPECT_EQ(bodies[static_cast<std::size_t>(t)], bodies[0]);
    }
  }
  auto store = open_or_fail(db_->url());
  auto page = store->list({});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->records.size(), 5u);  // one per key
  store->close();
}

}  // namespace
}  // namespace headgrader::server

// The passback outbox's marks for an id the store does not hold, against a real SQLite file and
// a real PostgreSQL server (scripts/with-postgres.sh): each answers false and leaves every item
// as it was, as submission_store.h promises and as the in-memory outbox (lti/score_outbox.h)
// answers.
#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <optional>
#include <string>

#include "store_test_support.h"
#include "submission_store.h"

namespace headgrader::store {
namespace {

using testing::Backend;

constexpr TimeMs kQueuedAt = 1'796'000'000'000;  // 2026-11-30T…, a fixed start

class StoreOutboxTest : public testing::OpenStoreTest {
 protected:
  // One committed record with one pending passback; its item.
  PassbackItem queue_one() {
    SubmissionRecord record;
    record.id = new_submission_id(kQueuedAt);
    record.time = kQueuedAt;
    record.problem = "p";
    record.problem_sha256 = std::string(64, 'a');
    record.student = "ada";
    record.key = "canvas";
    record.body = "{}";
    record.passed = true;
    record.tests_total = record.tests_passed = 1;
    record.score = 1.0;
    record.answer = "{}";
    const PassbackRequest request{"https://lms", "client", "https://lms/li/1",
                                  R"({"scoreGiven":1})", nullptr};
    std::promise<Result<CommitOutcome>> promise;
    auto future = promise.get_future();
    store_->commit(record, request, [&promise](Result<CommitOutcome> outcome) {
      promise.set_value(std::move(outcome));
    });
    const Result<CommitOutcome> committed = future.get();
    EXPECT_TRUE(committed) << committed.error().message;
    auto pending = store_->list_passbacks(PassbackStatus::kPending, 10);
    EXPECT_TRUE(pending && pending->size() == 1u);
    return pending && !pending->empty() ? pending->front() : PassbackItem{};
  }
};

TEST_P(StoreOutboxTest, MarkingAnUnknownIdAnswersFalseAndChangesNothing) {
  const PassbackItem item = queue_one();
  ASSERT_FALSE(item.id.empty());

  const Result<bool> sent = store_->mark_passback_sent("no-such-id", 200);
  ASSERT_TRUE(sent) << sent.error().message;
  EXPECT_FALSE(*sent);
  const Result<bool> failed = store_->mark_passback_failed("no-such-id", 400, "refused");
  ASSERT_TRUE(failed) << failed.error().message;
  EXPECT_FALSE(*failed);
  const Result<bool> retry =
      store_->mark_passback_retry("no-such-id", 503, "busy", kQueuedAt + 1000);
  ASSERT_TRUE(retry) << retry.error().message;
  EXPECT_FALSE(*retry);

  auto all = store_->list_passbacks(std::nullopt, 10);
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ(all->front().id, item.id);
  EXPECT_EQ(all->front().status, PassbackStatus::kPending);
  EXPECT_EQ(all->front().attempts, 0);
  EXPECT_EQ(all->front().last_error, "");

  // The item itself is marked: true.
  const Result<bool> marked = store_->mark_passback_sent(item.id, 200);
  ASSERT_TRUE(marked) << marked.error().message;
  EXPECT_TRUE(*marked);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreOutboxTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) { return testing::backend_name(info.param); });

}  // namespace
}  // namespace headgrader::store

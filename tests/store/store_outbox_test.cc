// The passback outbox (store/passback_outbox.h), against a real SQLite file and a real
// PostgreSQL server (scripts/with-postgres.sh): a score is queued with its record (a "best"
// one carrying the best committed score), claimed once (also by several stores on one database
// at once), retried and marked; the marks for an id the store does not hold each answer false
// and leave every item as it was, as submission_store.h promises and as the in-memory outbox
// (lti/score_outbox.h) answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store_test_support.h"
#include "submission_store.h"

namespace headgrader::store {
namespace {

using testing::Backend;
using testing::commit_now;
using testing::kT0;
using testing::make_record;
using testing::StoreTest;

// Several servers on one database each run a passback worker (API.md §11): a score is
// claimed by one of them only, so it is sent once.
TEST_P(StoreTest, TwoStoresClaimingPassbacksAtOnceClaimEachScoreOnce) {
  auto second = reopen();
  ASSERT_TRUE(second);
  constexpr int kScores = 40;
  for (int i = 0; i < kScores; ++i) {
    const PassbackRequest request{"https://lms", "client", "https://lms/li/1",
                                  R"({"scoreGiven":)" + std::to_string(i) + "}", nullptr};
    ASSERT_TRUE(
        commit_now(*store_, make_record(kT0 + i, "p", "s" + std::to_string(i), true), request));
  }
  // Both claim in small batches at the same moment, each from its own thread, until neither
  // finds more: every score is claimed, none twice.
  const auto claim_all = [](SubmissionStore& store) {
    std::vector<std::string> ids;
    for (;;) {
      auto claimed = store.claim_passbacks(kT0 + 1'000, 60'000, 3);
      if (!claimed || claimed->empty()) return ids;
      for (const PassbackItem& item : *claimed) ids.push_back(item.id);
    }
  };
  auto first_ids = std::async(std::launch::async, claim_all, std::ref(*store_));
  auto second_ids = std::async(std::launch::async, claim_all, std::ref(*second));
  std::vector<std::string> all = first_ids.get();
  const std::vector<std::string> other = second_ids.get();
  all.insert(all.end(), other.begin(), other.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "a score claimed twice";
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kScores));
  second->close();
}

// "passback": "best" is decided in the commit (PassbackRequest::best_payload): the best of the
// student's committed gradings through the record's LMS link, this one included, and a
// timestamp later than every one queued before for the student and line item, even for a
// grading whose own time is earlier (it overlapped one that committed first).
TEST_P(StoreTest, ABestPassbackCarriesTheBestCommittedScoreAndALaterTimestampThanAnyBefore) {
  PassbackRequest best{"https://lms", "client", "https://lms/li/1", "unused", nullptr};
  best.best_payload = [](double score, TimeMs timestamp) {
    return std::to_string(score) + "@" + std::to_string(timestamp - kT0);
  };
  const auto graded = [&](TimeMs time, std::int64_t tests_passed, std::string link) {
    SubmissionRecord record = make_record(time, "p", "ada", tests_passed == 10, tests_passed);
    record.lms_resource_link = std::move(link);
    auto committed = commit_now(*store_, record, best);
    EXPECT_TRUE(committed) << committed.error().message;
    return record.id;
  };
  const std::string passing = graded(kT0 + 10, 10, "link");
  const std::string earlier = graded(kT0 + 5, 3, "link");      // overlapped: its time is earlier
  const std::string later = graded(kT0 + 50, 2, "link");       // later, still below the best
  const std::string elsewhere = graded(kT0 + 60, 4, "other");  // another link: its own best
  auto pending = store_->list_passbacks(PassbackStatus::kPending, 100);
  ASSERT_TRUE(pending) << pending.error().message;
  std::map<std::string, std::string> payload_of;
  for (const PassbackItem& item : *pending) payload_of[item.submission_id] = item.request.payload;
  EXPECT_EQ(payload_of[passing], std::to_string(1.0) + "@10");
  EXPECT_EQ(payload_of[earlier], std::to_string(1.0) + "@11");
  EXPECT_EQ(payload_of[later], std::to_string(1.0) + "@50");
  // The same line item and student: still after every timestamp before it.
  EXPECT_EQ(payload_of[elsewhere], std::to_string(0.4) + "@60");
}

TEST_P(StoreTest, PassbackIsQueuedWithItsRecordClaimedOnceAndRetried) {
  const PassbackRequest request{"https://lms", "client", "https://lms/li/1", R"({"scoreGiven":1})",
                                nullptr};
  SubmissionRecord record = make_record(kT0, "p", "ada", true);
  record.idempotency = IdempotencyTag{"", "pb", "h"};
  ASSERT_TRUE(commit_now(*store_, record, request));
  // A replay of the same key queues nothing more: one score per record.
  SubmissionRecord replay = make_record(kT0 + 1, "p", "ada", true);
  replay.idempotency = record.idempotency;
  ASSERT_TRUE(commit_now(*store_, replay, request));

  auto pending = store_->list_passbacks(PassbackStatus::kPending, 100);
  ASSERT_TRUE(pending) << pending.error().message;
  ASSERT_EQ(pending->size(), 1u);
  const PassbackItem& item = pending->front();
  EXPECT_EQ(item.submission_id, record.id);
  EXPECT_EQ(item.request.lineitem, "https://lms/li/1");
  EXPECT_EQ(item.request.payload, R"({"scoreGiven":1})");
  EXPECT_EQ(item.attempts, 0);

  auto claimed = store_->claim_passbacks(kT0 + 100, 30'000, 10);
  ASSERT_TRUE(claimed) << claimed.error().message;
  ASSERT_EQ(claimed->size(), 1u);
  auto again = store_->claim_passbacks(kT0 + 200, 30'000, 10);  // leased: not due
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->empty());

  ASSERT_TRUE(store_->mark_passback_retry(item.id, 503, "busy", kT0 + 60'000));
  auto early = store_->claim_passbacks(kT0 + 59'999, 30'000, 10);
  ASSERT_TRUE(early);
  EXPECT_TRUE(early->empty());
  auto due = store_->claim_passbacks(kT0 + 60'000, 30'000, 10);
  ASSERT_TRUE(due);
  ASSERT_EQ(due->size(), 1u);
  EXPECT_EQ(due->front().attempts, 1);
  EXPECT_EQ(due->front().last_status, 503);
  EXPECT_EQ(due->front().last_error, "busy");

  ASSERT_TRUE(store_->mark_passback_failed(item.id, 400, "bad line item"));
  auto failed = store_->list_passbacks(PassbackStatus::kFailed, 100);
  ASSERT_TRUE(failed);
  ASSERT_EQ(failed->size(), 1u);
  EXPECT_EQ(failed->front().attempts, 2);
  auto none_due = store_->claim_passbacks(kT0 + 1'000'000, 30'000, 10);
  ASSERT_TRUE(none_due);
  EXPECT_TRUE(none_due->empty());

  auto retried = store_->retry_passback(item.id, kT0 + 2'000'000);
  ASSERT_TRUE(retried);
  EXPECT_TRUE(*retried);
  auto missing = store_->retry_passback("nope", kT0);
  ASSERT_TRUE(missing);
  EXPECT_FALSE(*missing);
  auto back = store_->claim_passbacks(kT0 + 2'000'000, 30'000, 10);
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 1u);
  auto pending_again = store_->retry_passback(item.id, kT0 + 2'000'000);
  ASSERT_TRUE(pending_again);
  EXPECT_FALSE(*pending_again) << "only a failed item is retried";
  ASSERT_TRUE(store_->mark_passback_sent(item.id, 200));
  auto resent = store_->retry_passback(item.id, kT0 + 3'000'000);
  ASSERT_TRUE(resent);
  EXPECT_FALSE(*resent) << "a sent score is never sent again";
  auto sent = store_->list_passbacks(PassbackStatus::kSent, 100);
  ASSERT_TRUE(sent);
  ASSERT_EQ(sent->size(), 1u);
  EXPECT_EQ(sent->front().last_status, 200);
  auto all = store_->list_passbacks(std::nullopt, 100);
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), 1u);
}

TEST_P(StoreTest, ClaimsAtOnceNeverShareAnItem) {
  const PassbackRequest request{"iss", "client", "li", "{}", nullptr};
  constexpr int kItems = 60;
  for (int i = 0; i < kItems; ++i) {
    ASSERT_TRUE(commit_now(*store_, make_record(kT0 + i, "p", "s" + std::to_string(i)), request));
  }
  auto other = reopen();  // a second server
  ASSERT_TRUE(other);
  std::vector<std::string> got[4];
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      SubmissionStore& s = t % 2 == 0 ? *store_ : *other;
      for (;;) {
        auto claimed = s.claim_passbacks(kT0 + 10'000, 600'000, 3);
        if (!claimed || claimed->empty()) return;
        for (const auto& item : *claimed) got[t].push_back(item.id);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::multiset<std::string> all;
  for (const auto& ids : got) all.insert(ids.begin(), ids.end());
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kItems));
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), all.size());
  other->close();
}

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

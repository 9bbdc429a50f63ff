// Commits through the store interface, on a real SQLite file and a real PostgreSQL server: a
// taken idempotency key gives back the earlier record (also with two stores on one database
// racing), commits queued at once share transactions and each gets its own outcome, and a
// closed store refuses.
#include <gtest/gtest.h>

#include <future>
#include <set>
#include <string>
#include <vector>

#include "store_test_support.h"
#include "submission_store.h"

namespace headgrader::store {
namespace {

using testing::commit_now;
using testing::kT0;
using testing::make_record;
using testing::StoreTest;

TEST_P(StoreTest, ATakenIdempotencyKeyGivesBackTheEarlierRecordAndWritesNothing) {
  SubmissionRecord first = make_record(kT0, "p", "ada");
  first.idempotency = IdempotencyTag{"canvas", "key-1", "hash-1"};
  commit_ok(first);
  SubmissionRecord again = make_record(kT0 + 5, "p", "ada");
  again.idempotency = IdempotencyTag{"canvas", "key-1", "hash-2"};
  auto outcome = commit_now(*store_, again);
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_FALSE(outcome->inserted);
  EXPECT_EQ(outcome->kept.id, first.id);
  EXPECT_EQ(outcome->kept.idempotency->body_sha256, "hash-1");
  auto absent = store_->get(again.id);
  ASSERT_TRUE(absent);
  EXPECT_FALSE(absent->has_value());
  // The same key under another authenticating key is another key.
  SubmissionRecord other_scope = make_record(kT0 + 6, "p", "ada");
  other_scope.idempotency = IdempotencyTag{"moodle", "key-1", "hash-1"};
  commit_ok(other_scope);
  auto found = store_->find_idempotent("canvas", "key-1");
  ASSERT_TRUE(found && found->has_value());
  EXPECT_EQ((*found)->id, first.id);
  auto none = store_->find_idempotent("canvas", "key-2");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
}

// Two stores on one database (two servers), each with many gradings carrying one key at once.
TEST_P(StoreTest, TwoStoresRacingOnOneIdempotencyKeyKeepExactlyOneRecord) {
  auto second = reopen();
  ASSERT_TRUE(second);
  constexpr int kEach = 16;
  std::vector<std::future<Result<CommitOutcome>>> outcomes;
  std::vector<std::promise<Result<CommitOutcome>>> promises(2 * kEach);
  for (int i = 0; i < 2 * kEach; ++i) {
    SubmissionRecord record = make_record(kT0 + i, "p", "ada");
    record.idempotency = IdempotencyTag{"canvas", "race", "h"};
    outcomes.push_back(promises[static_cast<std::size_t>(i)].get_future());
    SubmissionStore& target = i % 2 == 0 ? *store_ : *second;
    target.commit(std::move(record), std::nullopt, [&promises, i](Result<CommitOutcome> outcome) {
      promises[static_cast<std::size_t>(i)].set_value(std::move(outcome));
    });
  }
  int inserted = 0;
  std::set<std::string> kept;
  for (auto& future : outcomes) {
    auto outcome = future.get();
    ASSERT_TRUE(outcome) << outcome.error().message;
    inserted += outcome->inserted ? 1 : 0;
    kept.insert(outcome->kept.id);
  }
  EXPECT_EQ(inserted, 1);
  EXPECT_EQ(kept.size(), 1u);
  auto page = store_->list({});
  ASSERT_TRUE(page);
  ASSERT_EQ(page->records.size(), 1u);
  EXPECT_EQ(page->records[0].id, *kept.begin());
  second->close();
}

TEST_P(StoreTest, ConcurrentCommitsShareTransactions) {
  constexpr int kRecords = 300;
  std::vector<std::promise<Result<CommitOutcome>>> promises(kRecords);
  for (int i = 0; i < kRecords; ++i) {
    store_->commit(make_record(kT0 + i, "p", "s" + std::to_string(i)), std::nullopt,
                   [&promises, i](Result<CommitOutcome> outcome) {
                     promises[static_cast<std::size_t>(i)].set_value(std::move(outcome));
                   });
  }
  for (auto& promise : promises) {
    auto outcome = promise.get_future().get();
    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_TRUE(outcome->inserted);
  }
  const CommitCounters counters = store_->counters();
  EXPECT_EQ(counters.records, static_cast<std::uint64_t>(kRecords));
  // Queued faster than a transaction commits: most wait for the one before and go together.
  EXPECT_LT(counters.batches, counters.records / 2);
  SubmissionQuery query;
  query.limit = 1000;
  auto page = store_->list(query);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->records.size(), static_cast<std::size_t>(kRecords));
}

// One batch may hold records without keys, a key taken before, and one new key twice: each
// record gets its own outcome (SQLite writes a batch a record at a time, PostgreSQL in one
// statement).
TEST_P(StoreTest, ABatchMixingKeyedAndUnkeyedRecordsGivesEachItsOwnOutcome) {
  SubmissionRecord taken = make_record(kT0, "p", "ada");
  taken.idempotency = IdempotencyTag{"canvas", "taken", "h"};
  commit_ok(taken);
  constexpr int kRounds = 20;  // 5 records a round, queued at once: they share transactions
  std::vector<SubmissionRecord> records;
  for (int r = 0; r < kRounds; ++r) {
    const std::string n = std::to_string(r);
    records.push_back(make_record(kT0 + 10 * r + 1, "p", "plain-a" + n));
    records.push_back(make_record(kT0 + 10 * r + 2, "p", "taken" + n));
    records.back().idempotency = IdempotencyTag{"canvas", "taken", "h"};
    records.push_back(make_record(kT0 + 10 * r + 3, "p", "new-first" + n));
    records.back().idempotency = IdempotencyTag{"canvas", "new" + n, "h"};
    records.push_back(make_record(kT0 + 10 * r + 4, "p", "new-again" + n));
    records.back().idempotency = IdempotencyTag{"canvas", "new" + n, "h"};
    records.push_back(make_record(kT0 + 10 * r + 5, "p", "plain-b" + n));
  }
  const CommitCounters before = store_->counters();
  std::vector<std::promise<Result<CommitOutcome>>> promises(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    store_->commit(records[i], std::nullopt, [&promises, i](Result<CommitOutcome> outcome) {
      promises[i].set_value(std::move(outcome));
    });
  }
  std::vector<CommitOutcome> outcomes;
  for (auto& promise : promises) {
    auto outcome = promise.get_future().get();
    ASSERT_TRUE(outcome) << outcome.error().message;
    outcomes.push_back(std::move(outcome).value());
  }
  const CommitCounters after = store_->counters();
  EXPECT_LT(after.batches - before.batches, records.size() / 2) << "no batch held several";
  for (int r = 0; r < kRounds; ++r) {
    const std::size_t at = 5 * static_cast<std::size_t>(r);
    for (const std::size_t plain : {at, at + 4}) {
      EXPECT_TRUE(outcomes[plain].inserted) << records[plain].student.value_or("");
      EXPECT_EQ(outcomes[plain].kept.id, records[plain].id);
    }
    EXPECT_FALSE(outcomes[at + 1].inserted);
    EXPECT_EQ(outcomes[at + 1].kept.id, taken.id);
    // The new key's two: one is written and both get it (which one is the store's to choose:
    // with more than one committer lane, kPostgresCommitterLanes, the later may go first).
    EXPECT_NE(outcomes[at + 2].inserted, outcomes[at + 3].inserted);
    const SubmissionRecord& winner = records[outcomes[at + 2].inserted ? at + 2 : at + 3];
    for (const std::size_t keyed : {at + 2, at + 3}) {
      EXPECT_EQ(outcomes[keyed].kept.id, winner.id);
      EXPECT_EQ(outcomes[keyed].kept.student, winner.student);
    }
  }
  SubmissionQuery query;
  query.limit = 1000;
  auto page = store_->list(query);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->records.size(), 1 + 3 * static_cast<std::size_t>(kRounds));  // 3 a round
}

TEST_P(StoreTest, CommitAfterCloseIsAnError) {
  store_->close();
  auto outcome = commit_now(*store_, make_record(kT0, "p", "ada"));
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ErrorCode::kStoreUnavailable);
}

}  // namespace
}  // namespace headgrader::store

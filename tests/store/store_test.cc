// The store interface, run whole against both implementations: a real SQLite file and a real
// PostgreSQL server (scripts/with-postgres.sh). Records, idempotency (also two stores on one
// database racing), listing and its cursor, attempt-limit windows, stats inputs, the passback
// outbox, single-use values and student tokens.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <set>
#include <thread>

#include "headgrader/limits.h"
#include "migrations.h"
#include "postgres/postgres_connection.h"
#include "problem_stats.h"
#include "sqlite/sqlite_connection.h"
#include "sqlite/wal_checkpointer.h"
#include "store_test_support.h"
#include "submission_store.h"

namespace headgrader::store {
namespace {

using testing::Backend;

constexpr TimeMs kT0 = 1'796'000'000'000;  // 2026-11-30T…, a fixed start for every test

SubmissionRecord make_record(TimeMs time, std::string problem, std::optional<std::string> student,
                             bool passed = false, std::int64_t tests_passed = 0) {
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
Result<CommitOutcome> commit_now(SubmissionStore& store, SubmissionRecord record,
                                 std::optional<PassbackRequest> passback = std::nullopt) {
  std::promise<Result<CommitOutcome>> promise;
  auto future = promise.get_future();
  store.commit(std::move(record), std::move(passback), [&promise](Result<CommitOutcome> outcome) {
    promise.set_value(std::move(outcome));
  });
  return future.get();
}

class StoreTest : public testing::OpenStoreTest {
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

TEST_P(StoreTest, ARecordReadsBackAsWrittenAfterReopening) {
  SubmissionRecord record = make_record(kT0 + 123, "consonant-anywhere", "ada");
  record.score = 663.0 / 714.0;  // not a short decimal: must come back to the last bit
  record.tests_total = 714;
  record.tests_passed = 663;
  record.tests_failed = 51;
  record.failing_inputs = {"ab", "b\"\\\n", "é"};
  record.idempotency = IdempotencyTag{"canvas", "k-1", std::string(64, 'f')};
  record.lms_context = "ctx";
  record.lms_resource_link = "link";
  record.regrade_of = "0123";
  record.mistakes = {"key_too_soft", "an_authors_name"};
  record.variant = "f1.0-o1.0";
  record.member = "consonant-proportion";
  commit_ok(record);
  store_->close();
  store_ = reopen();
  ASSERT_TRUE(store_);
  auto got = store_->get(record.id);
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_TRUE(got->has_value());
  const SubmissionRecord& r = **got;
  EXPECT_EQ(r.id, record.id);
  EXPECT_EQ(r.time, record.time);
  EXPECT_EQ(r.problem, record.problem);
  EXPECT_EQ(r.problem_sha256, record.problem_sha256);
  EXPECT_EQ(r.student, record.student);
  EXPECT_EQ(r.key, record.key);
  EXPECT_EQ(r.body, record.body);
  EXPECT_EQ(r.passed, record.passed);
  EXPECT_EQ(r.score, 663.0 / 714.0);
  EXPECT_EQ(r.tests_total, 714);
  EXPECT_EQ(r.tests_passed, 663);
  EXPECT_EQ(r.tests_failed, 51);
  EXPECT_EQ(r.failing_inputs, record.failing_inputs);
  EXPECT_EQ(r.answer, record.answer);
  EXPECT_EQ(r.regrade_of, record.regrade_of);
  ASSERT_TRUE(r.idempotency);
  EXPECT_EQ(r.idempotency->body_sha256, std::string(64, 'f'));
  EXPECT_EQ(r.lms_context, "ctx");
  EXPECT_EQ(r.lms_resource_link, "link");
  EXPECT_EQ(r.mistakes, record.mistakes);
  EXPECT_EQ(r.variant, "f1.0-o1.0");
  EXPECT_EQ(r.member, "consonant-proportion");
  auto missing = store_->get("ffffffffffff0000000000000000");
  ASSERT_TRUE(missing);
  EXPECT_FALSE(missing->has_value());
}

TEST_P(StoreTest, AbsentFieldsStayAbsent) {
  SubmissionRecord record = make_record(kT0, "p", std::nullopt);
  record.key.reset();
  commit_ok(record);
  auto got = store_->get(record.id);
  ASSERT_TRUE(got && got->has_value());
  EXPECT_FALSE((*got)->student);
  EXPECT_FALSE((*got)->key);
  EXPECT_FALSE((*got)->regrade_of);
  EXPECT_FALSE((*got)->idempotency);
  EXPECT_TRUE((*got)->failing_inputs.empty());
  EXPECT_TRUE((*got)->mistakes.empty());
  EXPECT_EQ((*got)->variant, "");  // the problem as written
}

TEST_P(StoreTest, SchemaIsMigratedOnceAndOpeningAgainChangesNothing) {
  store_->close();
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(reopen());
  // The version table holds one row per migration, not one per start.
  auto raw = db_->connect();
  ASSERT_TRUE(raw) << raw.error().message;
  auto rows = (*raw)->query("SELECT COUNT(*), MAX(version) FROM schema_version", {});
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(*rows->front()[0], std::to_string(migrations().size()));
  EXPECT_EQ(*rows->front()[1], std::to_string(migrations().size()));
}

// A database a server of the schema before the last left: its records are counted and found as
// before once this server has migrated it (the last migration rebuilt the indexes that the
// key's window and a student's gradings are read from, leaving out gradings without a key or
// without a student).
TEST_P(StoreTest, RecordsWrittenUnderTheEarlierSchemaAreCountedAndFoundAfterMigrating) {
  auto earlier = testing::TestDatabase::make(GetParam());
  ASSERT_TRUE(earlier);
  {
    auto raw = earlier->connect();
    ASSERT_TRUE(raw) << raw.error().message;
    SqlConnection& db = **raw;
    ASSERT_TRUE(db.exec_script("CREATE TABLE schema_version (version INTEGER NOT NULL)"));
    const std::size_t last = 3;  // the schema before migration 4, whose indexes this pins
    for (std::size_t i = 0; i < last; ++i) {
      auto migrated = db.exec_script(migrations()[i]);
      ASSERT_TRUE(migrated) << migrated.error().message;
      ASSERT_TRUE(db.exec_script("INSERT INTO schema_version (version) VALUES (" +
                                 std::to_string(i + 1) + ")"));
    }
    // As that server wrote them: three gradings of the key (the second by ada), a regrade of
    // one, then one by ada without a key and one with neither (a server without --keys).
    for (int i = 0; i < 6; ++i) {
      auto inserted = db.query(
          "INSERT INTO submissions (id, time_ms, problem, problem_sha256, student, key_name, body, "
          "passed, score, tests_total, tests_passed, tests_failed, failing_inputs, answer, "
          "regrade_of) VALUES ($1, $2, 'p', 'h', $3, $4, '{}', $5, 1.0, 1, 1, 0, '[]', '{}', $6)",
          {new_submission_id(kT0 + i), std::int64_t{kT0 + i},
           i == 1 || i == 4 ? SqlValue(std::string("ada")) : SqlValue(),
           i < 4 ? SqlValue(std::string("canvas")) : SqlValue(), std::int64_t{i == 4 ? 0 : 1},
           i == 3 ? SqlValue(std::string("x")) : SqlValue()});
      ASSERT_TRUE(inserted) << inserted.error().message;
    }
  }
  auto opened = open_store(earlier->url());
  ASSERT_TRUE(opened) << opened.error().message;
  SubmissionStore& store = **opened;
  ASSERT_TRUE(commit_now(store, make_record(kT0 + 10, "p", std::nullopt)));  // key "canvas"
  const RateScope key{RateScope::Kind::kKey, "", "", "canvas"};
  auto window = store.gradings_since(key, kT0, 1000);
  ASSERT_TRUE(window) << window.error().message;
  EXPECT_EQ(window->count, 4);  // the three before and the one after; the regrade does not count
  auto at_cap = store.gradings_since(key, kT0, 2);
  ASSERT_TRUE(at_cap) << at_cap.error().message;
  EXPECT_EQ(at_cap->cap_th_newest, kT0 + 2);  // the newest two: kT0 + 10 and kT0 + 2
  // ada's gradings, with a key and without: both hers, the later one her latest.
  const RateScope ada{RateScope::Kind::kStudentProblem, "ada", "p", ""};
  auto hers = store.gradings_since(ada, kT0, 1000);
  ASSERT_TRUE(hers) << hers.error().message;
  EXPECT_EQ(hers->count, 2);
  auto latest = store.latest_per_student("p");
  ASSERT_TRUE(latest) << latest.error().message;
  ASSERT_EQ(latest->size(), 1U);
  EXPECT_EQ(latest->front().time, kT0 + 4);
  EXPECT_TRUE(latest->front().mistakes.empty());  // kept before mistakes were: none named
  EXPECT_EQ(latest->front().variant, "");         // kept before variants were: as written
  auto stats = store.stats_inputs("p");
  ASSERT_TRUE(stats) << stats.error().message;
  EXPECT_EQ(stats->submissions, 6);  // the regrade left out
  ASSERT_EQ(stats->students.size(), 1U);
  EXPECT_TRUE(stats->students.front().first_passed);  // her keyed grading, kT0 + 1
  EXPECT_FALSE(stats->students.front().latest.passed);
  SubmissionQuery by_ada;
  by_ada.problem = "p";
  by_ada.student = "ada";
  auto page = store.list(by_ada);
  ASSERT_TRUE(page) << page.error().message;
  ASSERT_EQ(page->records.size(), 2U);
  EXPECT_EQ(page->records.front().time, kT0 + 4);  // newest first
  SubmissionQuery everything;
  auto all = store.list(everything);
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(all->records.size(), 7U);
  store.close();
}

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

TEST_P(StoreTest, ListIsNewestFirstFilteredAndPagedByCursor) {
  std::vector<SubmissionRecord> all;
  for (int i = 0; i < 25; ++i) {
    all.push_back(
        commit_ok(make_record(kT0 + (i / 2) * 1000,  // pairs share a millisecond
                              i % 3 == 0 ? "p" : "q", i % 2 == 0 ? "ada" : "bob", i % 4 == 0)));
  }
  std::sort(all.begin(), all.end(), [](const SubmissionRecord& a, const SubmissionRecord& b) {
    return std::pair(a.time, a.id) > std::pair(b.time, b.id);
  });
  SubmissionQuery query;
  query.limit = 10;
  std::vector<std::string> seen;
  for (int page_number = 0;; ++page_number) {
    auto page = store_->list(query);
    ASSERT_TRUE(page) << page.error().message;
    for (const auto& r : page->records) {
      seen.push_back(r.id);
      EXPECT_TRUE(r.body.empty());  // the list leaves the large texts out
      EXPECT_TRUE(r.answer.empty());
    }
    if (!page->next_cursor) {
      EXPECT_EQ(page_number, 2);
      break;
    }
    query.cursor = *page->next_cursor;
  }
  std::vector<std::string> expected;
  for (const auto& r : all) expected.push_back(r.id);
  EXPECT_EQ(seen, expected);

  const auto count = [&](SubmissionQuery q) {
    q.limit = 1000;
    auto page = store_->list(q);
    EXPECT_TRUE(page);
    return page ? page->records.size() : 0;
  };
  const auto expect_count = [&](auto predicate) {
    return static_cast<std::size_t>(std::count_if(all.begin(), all.end(), predicate));
  };
  SubmissionQuery q;
  q.problem = "p";
  EXPECT_EQ(count(q), expect_count([](auto& r) { return r.problem == "p"; }));
  q.student = "ada";
  EXPECT_EQ(count(q), expect_count([](auto& r) { return r.problem == "p" && r.student == "ada"; }));
  q = {};
  q.passed = true;
  EXPECT_EQ(count(q), expect_count([](auto& r) { return r.passed; }));
  q.passed = false;
  EXPECT_EQ(count(q), expect_count([](auto& r) { return !r.passed; }));
  q = {};
  q.since = kT0 + 3000;
  q.until = kT0 + 6000;  // [since, until): times 3000, 4000, 5000: six records
  EXPECT_EQ(count(q), 6u);

  SubmissionQuery bad;
  bad.cursor = "not-a-cursor";
  auto refused = store_->list(bad);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().field, "cursor");
}

TEST_P(StoreTest, AttemptWindowCountsUpToTheCapAndNamesTheOldestCounted) {
  for (int i = 0; i < 5; ++i) commit_ok(make_record(kT0 + i * 1000, "p", "ada"));
  SubmissionRecord regrade = make_record(kT0 + 9000, "p", "ada");
  regrade.regrade_of = "x";
  commit_ok(regrade);
  commit_ok(make_record(kT0 + 9500, "q", "ada"));  // another problem
  commit_ok(make_record(kT0 + 9600, "p", "bob"));  // another student

  const RateScope ada{RateScope::Kind::kStudentProblem, "ada", "p", ""};
  auto under = store_->gradings_since(ada, kT0 + 1000, 10);
  ASSERT_TRUE(under) << under.error().message;
  EXPECT_EQ(under->count, 4);  // 1000..4000; the regrade does not count
  EXPECT_FALSE(under->cap_th_newest);
  auto at_cap = store_->gradings_since(ada, kT0, 3);
  ASSERT_TRUE(at_cap);
  EXPECT_EQ(at_cap->count, 3);
  EXPECT_EQ(at_cap->cap_th_newest, kT0 + 2000);  // the newest three: 4000, 3000, 2000

  const RateScope key{RateScope::Kind::kKey, "", "", "canvas"};
  auto by_key = store_->gradings_since(key, kT0, 1000);
  ASSERT_TRUE(by_key);
  EXPECT_EQ(by_key->count, 7);
}

TEST_P(StoreTest, StatsInputsGiveEachStudentsFirstAndLatest) {
  // ada: fails (3/10) then passes; bob: passes first then a regrade fails (7/10);
  // cy: one failure (0/10); an anonymous grading counts as a submission only.
  commit_ok(make_record(kT0, "p", "ada", false, 3));
  commit_ok(make_record(kT0 + 10, "p", "bob", true));
  commit_ok(make_record(kT0 + 20, "p", "ada", true));
  commit_ok(make_record(kT0 + 30, "p", "cy", false, 0));
  commit_ok(make_record(kT0 + 40, "p", std::nullopt, true));
  commit_ok(make_record(kT0 + 50, "q", "dan", true));
  SubmissionRecord regrade = make_record(kT0 + 60, "p", "bob", false, 7);
  regrade.regrade_of = "x";
  regrade.failing_inputs = {"ab", "b"};
  commit_ok(regrade);

  auto inputs = store_->stats_inputs("p");
  ASSERT_TRUE(inputs) << inputs.error().message;
  EXPECT_EQ(inputs->submissions, 5);
  ASSERT_EQ(inputs->students.size(), 3u);
  EXPECT_EQ(inputs->students[0].student, "ada");
  EXPECT_FALSE(inputs->students[0].first_passed);
  EXPECT_TRUE(inputs->students[0].latest.passed);
  EXPECT_EQ(inputs->students[1].student, "bob");
  EXPECT_TRUE(inputs->students[1].first_passed);
  EXPECT_EQ(inputs->students[1].latest.id, regrade.id);
  EXPECT_EQ(inputs->students[2].student, "cy");

  auto latest = store_->latest_per_student("p");
  ASSERT_TRUE(latest);
  ASSERT_EQ(latest->size(), 3u);
  EXPECT_EQ((*latest)[1].id, regrade.id);
  EXPECT_EQ((*latest)[1].body, regrade.body);  // whole: regrading needs the matrices
}

TEST(ProblemStats, CountsBinsAndCommonFailuresByHand) {
  StatsInputs inputs;
  inputs.submissions = 9;
  const auto student = [](std::string name, bool first, std::int64_t passed_tests,
                          std::vector<std::string> failing) {
    StudentSummary s;
    s.student = std::move(name);
    s.first_passed = first;
    s.latest.tests_total = 10;
    s.latest.tests_passed = passed_tests;
    s.latest.passed = passed_tests == 10;
    s.latest.failing_inputs = std::move(failing);
    return s;
  };
  inputs.students = {student("a", true, 10, {}), student("b", false, 3, {"ab", "b", "ab"}),
                     student("c", false, 9, {"b"}), student("d", false, 0, {"ab", "cb"}),
                     student("e", true, 10, {})};
  const ProblemStats stats = compute_stats("p", inputs);
  EXPECT_EQ(stats.submissions, 9);
  EXPECT_EQ(stats.students, 5);
  EXPECT_EQ(stats.students_passed, 2);
  EXPECT_EQ(stats.first_try_pass_rate, 0.4);
  // 0.3 → bin 3; 0.9 and 1.0 → bin 9 (the last bin is closed); 0 → bin 0.
  const std::array<std::int64_t, 10> bins = {1, 0, 0, 1, 0, 0, 0, 0, 0, 3};
  EXPECT_EQ(stats.score_histogram, bins);
  ASSERT_EQ(stats.common_failures.size(), 3u);
  EXPECT_EQ(stats.common_failures[0].input, "ab");  // b and d (b's twice counts once)
  EXPECT_EQ(stats.common_failures[0].students, 2);
  EXPECT_EQ(stats.common_failures[1].input, "b");  // b and c; ties by input
  EXPECT_EQ(stats.common_failures[1].students, 2);
  EXPECT_EQ(stats.common_failures[2].input, "cb");
  EXPECT_FALSE(compute_stats("p", {}).first_try_pass_rate);
}

TEST(ProblemStats, MistakesAreCountedOncePerStudentMostFirstThenByName) {
  StatsInputs inputs;
  const auto student = [](std::string name, std::vector<std::string> mistakes) {
    StudentSummary s;
    s.student = std::move(name);
    s.latest.tests_total = 10;
    s.latest.mistakes = std::move(mistakes);
    return s;
  };
  inputs.students = {student("a", {"value_rows_swapped", "key_too_soft"}),
                     student("b", {"key_too_soft", "key_too_soft"}), student("c", {"zeta_name"}),
                     student("d", {"value_rows_swapped"}), student("e", {})};
  const ProblemStats stats = compute_stats("p", inputs);
  ASSERT_EQ(stats.mistakes.size(), 3u);
  // 2, 2 (a tie: by name), 1; b's twice counts once.
  EXPECT_EQ(stats.mistakes[0].mistake, "key_too_soft");
  EXPECT_EQ(stats.mistakes[0].students, 2);
  EXPECT_EQ(stats.mistakes[1].mistake, "value_rows_swapped");
  EXPECT_EQ(stats.mistakes[1].students, 2);
  EXPECT_EQ(stats.mistakes[2].mistake, "zeta_name");
  EXPECT_EQ(stats.mistakes[2].students, 1);
}

TEST(ProblemStats, VariantsCountEachStudentsLatestGradingByVariantId) {
  StatsInputs inputs;
  const auto student = [](std::string name, std::string variant, bool passed) {
    StudentSummary s;
    s.student = std::move(name);
    s.latest.tests_total = 10;
    s.latest.passed = passed;
    s.latest.variant = std::move(variant);
    return s;
  };
  inputs.students = {student("a", "f1.0", true), student("b", "f0.1", false),
                     student("c", "f1.0", false), student("d", "f1.0", true),
                     student("e", "", true)};  // graded on the problem as written: in none
  const ProblemStats stats = compute_stats("p", inputs);
  ASSERT_EQ(stats.variants.size(), 2u);
  EXPECT_EQ(stats.variants[0].variant, "f0.1");  // by id
  EXPECT_EQ(stats.variants[0].students, 1);
  EXPECT_EQ(stats.variants[0].students_passed, 0);
  EXPECT_EQ(stats.variants[1].variant, "f1.0");
  EXPECT_EQ(stats.variants[1].students, 3);
  EXPECT_EQ(stats.variants[1].students_passed, 2);
  EXPECT_TRUE(compute_stats("p", {}).variants.empty());
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

TEST_P(StoreTest, SingleUseValuesAreTrueOnlyTheFirstTime) {
  auto first = store_->use_once("nonce:1", kT0 + 1000, kT0);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(*first);
  EXPECT_FALSE(*store_->use_once("nonce:1", kT0 + 1000, kT0 + 1));
  EXPECT_TRUE(*store_->use_once("nonce:1", kT0 + 5000, kT0 + 1000));  // the earlier expired

  ASSERT_TRUE(store_->put_once("state:a", kT0 + 1000));
  EXPECT_FALSE(*store_->take_once("state:b", kT0));
  EXPECT_TRUE(*store_->take_once("state:a", kT0 + 999));
  EXPECT_FALSE(*store_->take_once("state:a", kT0 + 999));
  ASSERT_TRUE(store_->put_once("state:c", kT0 + 1000));
  EXPECT_FALSE(*store_->take_once("state:c", kT0 + 1000));  // expired
}

TEST_P(StoreTest, StudentTokensAreFoundByHashUntilTheyExpire) {
  StudentToken token{
      std::string(64, 'c'), "https://lms#42",   "p",        "https://lms",      "client", "ctx",
      std::nullopt,         "https://lms/li/9", kT0 + 1000, R"({"name":"Ada"})"};
  ASSERT_TRUE(store_->put_student_token(token));
  auto found = store_->find_student_token(token.token_sha256, kT0 + 999);
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->student, "https://lms#42");
  EXPECT_EQ((*found)->context, "ctx");
  EXPECT_FALSE((*found)->resource_link);
  EXPECT_EQ((*found)->lineitem, "https://lms/li/9");
  EXPECT_EQ((*found)->details, R"({"name":"Ada"})");
  EXPECT_FALSE(store_->find_student_token(token.token_sha256, kT0 + 1000)->has_value());
  EXPECT_FALSE(store_->find_student_token(std::string(64, 'd'), kT0)->has_value());
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) { return testing::backend_name(info.param); });

TEST(OpenStore, AMissingFolderIsNotCreatedAndTheErrorSaysSo) {
  const auto folder = std::filesystem::temp_directory_path() / "headgrader-no-such-folder";
  std::filesystem::remove_all(folder);
  auto opened = open_store("sqlite:" + (folder / "x.db").string());
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ErrorCode::kStoreUnavailable);
  EXPECT_NE(opened.error().message.find("does not exist"), std::string::npos)
      << opened.error().message;
  EXPECT_FALSE(std::filesystem::exists(folder));
}

TEST(OpenStore, ANewSqliteFileKeepsItsRecordsInWalModeOnFourKibPages) {
  // SQLite's default 4 KiB pages: each group commit rewrites the last page of the table and
  // of each index, so larger pages were more bytes to sync per commit (docs/benchmarks-store).
  const auto path = std::filesystem::temp_directory_path() / "headgrader-page-size.db";
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
  ASSERT_TRUE(open_store("sqlite:" + path.string()));
  auto connection = SqliteConnection::open(path);
  ASSERT_TRUE(connection) << connection.error().message;
  const auto pragma = [&](const char* name) {
    auto rows = (*connection)->query(std::string("PRAGMA ") + name, {});
    EXPECT_TRUE(rows) << name;
    return rows && !rows->empty() ? rows->front().front() : std::nullopt;
  };
  EXPECT_EQ(pragma("page_size"), "4096");
  EXPECT_EQ(pragma("journal_mode"), "wal");
}

// The committer leaves checkpoints to a thread of its own (store/sqlite/wal_checkpointer.h): the
// WAL is still copied back into the database file as it grows, while the store stays open.
TEST(OpenStore, ASqliteStoresWalIsCopiedBackIntoItsFileWhileItServes) {
  const auto path = std::filesystem::temp_directory_path() / "headgrader-checkpoint.db";
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
  auto store = open_store("sqlite:" + path.string());
  ASSERT_TRUE(store) << store.error().message;
  const auto file_size = [&] { return std::filesystem::file_size(path); };
  const std::uintmax_t empty = file_size();
  // About 6 MB of answers: past limits::kSqliteCheckpointPages (1000 pages of 4 KiB) of WAL,
  // well short of the committer's own limit (16 000 pages).
  constexpr int kRecords = 300;
  std::vector<std::promise<Result<CommitOutcome>>> promises(kRecords);
  for (int i = 0; i < kRecords; ++i) {
    SubmissionRecord record = make_record(kT0 + i, "p", "s" + std::to_string(i));
    record.answer = std::string(20'000, 'x');
    (*store)->commit(std::move(record), std::nullopt,
                     [&promises, i](Result<CommitOutcome> outcome) {
                       promises[static_cast<std::size_t>(i)].set_value(std::move(outcome));
                     });
  }
  for (auto& promise : promises) ASSERT_TRUE(promise.get_future().get());
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (file_size() < empty + 4'000'000 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_GE(file_size(), empty + 4'000'000) << "the WAL was not checkpointed";
  SubmissionQuery query;
  query.limit = 1000;
  auto page = (*store)->list(query);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->records.size(), static_cast<std::size_t>(kRecords));
  (*store)->close();
}

// Paced checkpoints (store/sqlite/wal_checkpointer.h): once per 1000 new pages, not after every
// commit once the WAL holds 1000; after every commit for the last 256 pages before the
// committer's own limit of 16 000; and afresh once the WAL has restarted.
TEST(WalCheckpointer, AsksOncePerThousandNewPagesThenAtEveryCommitJustBeforeTheCommittersLimit) {
  static_assert(limits::kSqliteCheckpointPages == 1000);
  static_assert(limits::kSqliteCheckpointCatchUpPages == 256);
  static_assert(limits::kSqliteCommitterCheckpointPages == 16000);
  CheckpointPacing pacing;
  std::vector<int> asked;
  // Commits of 30 pages each up to the committer's limit (the hook tells the thread nothing
  // from 16 000 on: the committer copies the rest itself), then the WAL restarts.
  for (int pages = 30; pages < 16000; pages += 30) {
    if (pacing.due(pages)) asked.push_back(pages);
  }
  for (int pages = 40; pages <= 1200; pages += 40) {
    if (pacing.due(pages)) asked.push_back(pages);
  }
  std::vector<int> expected;
  for (int k = 1; k <= 15; ++k) expected.push_back(1020 * k);  // 34 commits of 30 pages
  for (int pages = 15750; pages < 16000; pages += 30) expected.push_back(pages);  // >= 15744
  expected.push_back(1000);  // 25 commits of 40 pages after the restart
  EXPECT_EQ(asked, expected);
}

// The committer's connection copies what is left of the WAL by itself once it holds 16 000
// pages (with no checkpoint thread at all here, and nothing asked of the one that is not
// there from then on), so however long commits keep coming the WAL restarts from its first
// page (its file keeps the largest size it had): with 70 MB committed it stays near 16 000
// pages of 4 KiB instead of growing to 70 MB.
TEST(SqliteConnection, ACommittersWalRestartsOnceItHoldsTheCommittersLimit) {
  static_assert(limits::kSqliteCommitterCheckpointPages == 16000);
  const auto path = std::filesystem::temp_directory_path() / "headgrader-wal-restart.db";
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
  auto opened = SqliteConnection::open(path);
  ASSERT_TRUE(opened) << opened.error().message;
  auto& db = dynamic_cast<SqliteConnection&>(**opened);
  int most_told = 0;
  db.checkpoint_elsewhere([&](int pages) { most_told = std::max(most_told, pages); });
  ASSERT_TRUE(db.exec_script("CREATE TABLE t (x TEXT NOT NULL)"));
  constexpr int kRows = 350;  // about 50 pages each, one commit each
  for (int i = 0; i < kRows; ++i) {
    ASSERT_TRUE(db.query("INSERT INTO t (x) VALUES ($1)",
                         {std::string(200'000, static_cast<char>('a' + i % 26))}));
  }
  // A WAL frame is a 24-byte header and a page; the WAL file starts with 32 bytes.
  const std::uintmax_t bound = 32 + std::uintmax_t{16000 + 100} * (24 + 4096);
  EXPECT_LE(std::filesystem::file_size(path.string() + "-wal"), bound);
  EXPECT_LT(most_told, 16000);
  auto count = db.query("SELECT COUNT(*), SUM(LENGTH(x)) FROM t", {});
  ASSERT_TRUE(count);
  EXPECT_EQ(count->front()[0], std::to_string(kRows));
  EXPECT_EQ(count->front()[1], std::to_string(kRows * 200'000));
}

TEST(OpenStore, AnUnknownSchemeAndAnUnreachableServerAreErrors) {
  auto scheme = open_store("mysql://x");
  ASSERT_FALSE(scheme);
  EXPECT_NE(scheme.error().message.find("sqlite:PATH"), std::string::npos);
  // Port 1 on loopback: nothing listens there.
  auto unreachable = open_store("postgresql://u:secret-password@127.0.0.1:1/db");
  ASSERT_FALSE(unreachable);
  EXPECT_NE(unreachable.error().message.find("cannot connect to PostgreSQL"), std::string::npos);
  EXPECT_EQ(unreachable.error().message.find("secret-password"), std::string::npos);
}

TEST(RecordIds, SortByTimeAndDiffer) {
  const std::string a = new_submission_id(1000), b = new_submission_id(1000);
  EXPECT_EQ(a.size(), 28u);
  EXPECT_NE(a, b);
  // Within one millisecond, in the order they were made: the listing's "newest first".
  const std::string c = new_submission_id(1000);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_LT(new_submission_id(999), new_submission_id(1000).substr(0, 12) + "0");
}

}  // namespace
}  // namespace headgrader::store

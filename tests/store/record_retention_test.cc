// --retain-days (API.md §17) on a real SQLite file and a real PostgreSQL server: the store's
// deletion of the records before a time, exactly (older deleted, the rest kept), with their
// sent passbacks, keeping a record whose passback is not sent yet; in batches, oldest first;
// and the server's sweep at start, against the real binary.
#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "server_harness.h"
#include "store_test_support.h"
#include "submission_store.h"
#include "test_support.h"

namespace headgrader::store::retention_test {
namespace {

using testing::Backend;

constexpr TimeMs kNow = 1'796'000'000'000;  // 2026-11-30T…, a fixed time for the store's tests
constexpr TimeMs kDay = 86'400'000;

SubmissionRecord record_at(TimeMs time, const std::string& student) {
  SubmissionRecord r;
  r.id = new_submission_id(time);
  r.time = time;
  r.problem = "consonant-anywhere";
  r.problem_sha256 = std::string(64, 'a');
  r.student = student;
  r.key = "canvas";
  r.body = R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})";
  r.passed = true;
  r.tests_total = r.tests_passed = 10;
  r.score = 1.0;
  r.answer = R"({"submission_id":")" + r.id + "\"}";
  return r;
}

// `record` committed (with a passback when asked), waited for.
void commit(SubmissionStore& store, const SubmissionRecord& record, bool passback = false) {
  std::optional<PassbackRequest> request;
  if (passback)
    request = PassbackRequest{"https://lms", "client", "https://lms/li/1", "{}", nullptr};
  std::promise<Result<CommitOutcome>> promise;
  auto future = promise.get_future();
  store.commit(record, request, [&promise](Result<CommitOutcome> outcome) {
    promise.set_value(std::move(outcome));
  });
  const Result<CommitOutcome> outcome = future.get();
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_TRUE(outcome->inserted);
}

// The ids of every record in the store.
std::set<std::string> record_ids(SubmissionStore& store) {
  SubmissionQuery query;
  query.limit = limits::kMaxListLimit;
  auto page = store.list(query);
  EXPECT_TRUE(page) << page.error().message;
  std::set<std::string> ids;
  if (page) {
    for (const SubmissionRecord& r : page->records) ids.insert(r.id);
  }
  return ids;
}

// The passback item of `submission_id`, if any.
std::optional<PassbackItem> passback_of(SubmissionStore& store, const std::string& submission_id) {
  auto all = store.list_passbacks(std::nullopt, 1000);
  EXPECT_TRUE(all) << all.error().message;
  for (const PassbackItem& item : *all) {
    if (item.submission_id == submission_id) return item;
  }
  return std::nullopt;
}

using RecordRetentionStore = testing::OpenStoreTest;

TEST_P(RecordRetentionStore, RecordsBeforeTheTimeGoWithTheirSentPassbacksAndUnsentOnesStay) {
  const TimeMs cutoff = kNow - 2 * kDay;
  const SubmissionRecord plain = record_at(cutoff - 5 * kDay, "ada");
  const SubmissionRecord sent = record_at(cutoff - 3 * kDay, "bob");
  const SubmissionRecord pending = record_at(cutoff - 3 * kDay, "cy");
  const SubmissionRecord failed = record_at(cutoff - 1, "di");
  const SubmissionRecord at_cutoff = record_at(cutoff, "eve");
  const SubmissionRecord newer = record_at(kNow, "ada");
  commit(*store_, plain);
  commit(*store_, sent, true);
  commit(*store_, pending, true);
  commit(*store_, failed, true);
  commit(*store_, at_cutoff);
  commit(*store_, newer, true);
  ASSERT_TRUE(store_->mark_passback_sent(passback_of(*store_, sent.id)->id, 200));
  ASSERT_TRUE(store_->mark_passback_failed(passback_of(*store_, failed.id)->id, 400, "refused"));
  const std::string sent_item = passback_of(*store_, sent.id)->id;

  auto deleted = store_->delete_records_before(cutoff, 1000);
  ASSERT_TRUE(deleted) << deleted.error().message;
  EXPECT_EQ(*deleted, 2);
  EXPECT_EQ(record_ids(*store_),
            (std::set<std::string>{pending.id, failed.id, at_cutoff.id, newer.id}));
  EXPECT_FALSE(passback_of(*store_, sent.id)) << "a sent passback goes with its record";
  EXPECT_FALSE(store_->mark_passback_sent(sent_item, 200).value());
  EXPECT_EQ(passback_of(*store_, pending.id)->status, PassbackStatus::kPending);
  EXPECT_EQ(passback_of(*store_, failed.id)->status, PassbackStatus::kFailed);
  EXPECT_EQ(passback_of(*store_, newer.id)->status, PassbackStatus::kPending);
  EXPECT_EQ(*store_->delete_records_before(cutoff, 1000), 0) << "nothing more is due";

  // Once sent, the kept record goes at the next sweep.
  ASSERT_TRUE(store_->mark_passback_sent(passback_of(*store_, pending.id)->id, 200));
  EXPECT_EQ(*store_->delete_records_before(cutoff, 1000), 1);
  EXPECT_EQ(record_ids(*store_), (std::set<std::string>{failed.id, at_cutoff.id, newer.id}));
  EXPECT_FALSE(passback_of(*store_, pending.id));
}

TEST_P(RecordRetentionStore, ABatchDeletesTheOldestFirstAndSaysHowManyItDeleted) {
  std::vector<SubmissionRecord> old;
  for (int i = 0; i < 5; ++i) {
    old.push_back(record_at(kNow - (10 - i) * kDay, "s" + std::to_string(i)));
    commit(*store_, old.back());
  }
  const SubmissionRecord newer = record_at(kNow, "s");
  commit(*store_, newer);
  EXPECT_EQ(*store_->delete_records_before(kNow - kDay, 2), 2);
  EXPECT_EQ(record_ids(*store_),
            (std::set<std::string>{old[2].id, old[3].id, old[4].id, newer.id}));
  EXPECT_EQ(*store_->delete_records_before(kNow - kDay, 2), 2);
  EXPECT_EQ(*store_->delete_records_before(kNow - kDay, 2), 1);
  EXPECT_EQ(*store_->delete_records_before(kNow - kDay, 2), 0);
  EXPECT_EQ(record_ids(*store_), std::set<std::string>{newer.id});
}

INSTANTIATE_TEST_SUITE_P(Backends, RecordRetentionStore,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) { return testing::backend_name(info.param); });

// The real server started with --retain-days on a store holding records of several ages,
// written through the store with their own times.
class RecordRetentionServer : public ::testing::TestWithParam<Backend> {};

TEST_P(RecordRetentionServer, TheSweepAtStartDeletesExactlyTheRecordsOlderThanTheDays) {
  HEADGRADER_NEED_DATABASE(db, GetParam());
  const TimeMs now = now_ms();
  const SubmissionRecord older = record_at(now - 3 * kDay - 60'000, "ada");
  const SubmissionRecord younger = record_at(now - 3 * kDay + 3'600'000, "bob");
  const SubmissionRecord today = record_at(now, "cy");
  {
    auto opened = open_store(db->url());
    ASSERT_TRUE(opened) << opened.error().message;
    for (const auto* r : {&older, &younger, &today}) commit(**opened, *r);
    (*opened)->close();
  }
  server::harness::ServerProcess server({"--port", "0", "--address", "127.0.0.1", "--problems",
                                         headgrader::testing::kProblemsDir, "--store", db->url(),
                                         "--retain-days", "3"});
  ASSERT_NE(server.wait_listening(), 0);
  const std::string log = server.stderr_text_when(
      [](const std::string& text) { return text.find("retention: ") != std::string::npos; });
  EXPECT_NE(log.find("retention: deleted 1 record older than 3 days (before "), std::string::npos)
      << log;
  auto reopened = open_store(db->url());
  ASSERT_TRUE(reopened) << reopened.error().message;
  EXPECT_EQ(record_ids(**reopened), (std::set<std::string>{younger.id, today.id}));
  (*reopened)->close();
}

INSTANTIATE_TEST_SUITE_P(Backends, RecordRetentionServer,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) { return testing::backend_name(info.param); });

}  // namespace
}  // namespace headgrader::store::retention_test

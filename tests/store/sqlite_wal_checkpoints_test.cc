// The WAL of a SQLite store copied back into its file (store/sqlite/wal_checkpointer.h), on
// real files: while the store serves, paced by new pages, and by the committer itself once
// the WAL holds the committer's limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "headgrader/limits.h"
#include "sqlite/sqlite_connection.h"
#include "sqlite/wal_checkpointer.h"
#include "store_test_support.h"
#include "submission_store.h"

namespace headgrader::store {
namespace {

using testing::kT0;
using testing::make_record;

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

}  // namespace
}  // namespace headgrader::store

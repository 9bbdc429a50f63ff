// The WAL's writes gathered into one (store/sqlite/wal_write_gathering.h), checked on real files:
// what one connection commits, another reads at once, whatever the size of the transaction, and a
// file reopened from its WAL alone (no checkpoint) holds it all.
#include "sqlite/wal_write_gathering.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "headgrader/limits.h"
#include "sqlite/sqlite_connection.h"

namespace headgrader::store {
namespace {

std::filesystem::path fresh_file(const char* name) {
  const auto path = std::filesystem::temp_directory_path() / name;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
  return path;
}

std::string one_row(SqlConnection& db, const std::string& sql) {  // its first column
  auto rows = db.query(sql, {});
  EXPECT_TRUE(rows) << (rows ? "" : rows.error().message);
  if (!rows || rows->empty() || !rows->front()[0]) return "";
  return *rows->front()[0];
}

TEST(WalWriteGathering, IsRegisteredBesideTheDefaultVfsNotInsteadOfIt) {
  const char* name = wal_write_gathering::name();
  ASSERT_NE(name, nullptr);
  EXPECT_STREQ(name, "headgrader-wal-gathering");
  EXPECT_NE(sqlite3_vfs_find(name), nullptr);
  EXPECT_STRNE(sqlite3_vfs_find(nullptr)->zName, name);
}

// Transactions of one small row, of rows larger than the 128 KiB that SQLite's unix VFS writes
// per call, and of more than limits::kSqliteWalGatherBytes in all (gathered in several goes,
// and one row larger than that on its own): a second connection reads each as it commits, and
// the WAL holds them all (no checkpoint runs here).
TEST(WalWriteGathering, WhatOneConnectionCommitsAnotherReadsWhateverItsSize) {
  const auto path = fresh_file("headgrader-gathering.db");
  auto writer = SqliteConnection::open(path);
  ASSERT_TRUE(writer) << writer.error().message;
  auto reader = SqliteConnection::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  ASSERT_TRUE((*writer)->exec_script(
      "PRAGMA wal_autocheckpoint=0; CREATE TABLE t (n INTEGER NOT NULL, x TEXT NOT NULL)"));
  const std::size_t big = limits::kSqliteWalGatherBytes + 12'345;
  const std::vector<std::vector<std::size_t>> transactions = {
      {10}, {131'072}, {200'000, 300'000}, {400'000, 400'000, 400'000}, {big}, {5, 70'000}};
  std::size_t rows = 0, bytes = 0;
  for (const auto& transaction : transactions) {
    ASSERT_TRUE((*writer)->exec_script("BEGIN IMMEDIATE"));
    for (const std::size_t size : transaction) {
      ASSERT_TRUE((*writer)->query("INSERT INTO t (n, x) VALUES ($1, $2)",
                                   {static_cast<std::int64_t>(rows),
                                    std::string(size, static_cast<char>('a' + rows % 26))}));
      ++rows;
      bytes += size;
    }
    ASSERT_TRUE((*writer)->exec_script("COMMIT"));
    EXPECT_EQ(one_row(**reader, "SELECT COUNT(*) FROM t"), std::to_string(rows));
    EXPECT_EQ(one_row(**reader, "SELECT SUM(LENGTH(x)) FROM t"), std::to_string(bytes));
  }
  auto largest = (*reader)->query("SELECT x FROM t WHERE n = 7", {});
  ASSERT_TRUE(largest);
  EXPECT_EQ(largest->front()[0], std::string(big, static_cast<char>('a' + 7 % 26)));
  EXPECT_GT(std::filesystem::file_size(path.string() + "-wal"), bytes) << "all of it in the WAL";
  EXPECT_EQ(one_row(**reader, "PRAGMA integrity_check"), "ok");
}

// A WAL that was never checkpointed is read back whole by the next process (SQLite recovers
// the database from its frames, checksums and all): here, a file whose connections closed
// with SQLite told not to checkpoint on close, then reopened.
TEST(WalWriteGathering, AWalNeverCheckpointedIsReadBackWholeOnReopening) {
  const auto path = fresh_file("headgrader-gathering-reopen.db");
  {
    auto db = SqliteConnection::open(path);
    ASSERT_TRUE(db) << db.error().message;
    ASSERT_TRUE((*db)->exec_script("PRAGMA wal_autocheckpoint=0; CREATE TABLE t (x TEXT)"));
    for (int i = 0; i < 40; ++i) {
      ASSERT_TRUE((*db)->query("INSERT INTO t (x) VALUES ($1)", {std::string(50'000, 'q')}));
    }
    // A copy of the WAL and the file as they are now, before closing checkpoints them.
    for (const char* suffix : {"", "-wal"}) {
      std::filesystem::copy_file(path.string() + suffix, path.string() + ".copy" + suffix,
                                 std::filesystem::copy_options::overwrite_existing);
    }
  }
  const std::filesystem::path copy = path.string() + ".copy";
  std::filesystem::remove(copy.string() + "-shm");
  EXPECT_GT(std::filesystem::file_size(copy.string() + "-wal"), 40u * 50'000);
  auto reopened = SqliteConnection::open(copy);
  ASSERT_TRUE(reopened) << reopened.error().message;
  auto same = (*reopened)->query("SELECT COUNT(*) FROM t WHERE x = $1", {std::string(50'000, 'q')});
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_EQ(same->front()[0], "40");
  EXPECT_EQ(one_row(**reopened, "PRAGMA integrity_check"), "ok");
}

}  // namespace
}  // namespace headgrader::store

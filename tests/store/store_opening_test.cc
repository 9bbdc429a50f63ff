// Opening a store by URL: a missing folder is not created, a new SQLite file is in WAL mode
// on 4 KiB pages, an unknown scheme and an unreachable PostgreSQL server are errors that say
// so (and never show the password).
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "sqlite/sqlite_connection.h"
#include "submission_store.h"

namespace headgrader::store {
namespace {

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

}  // namespace
}  // namespace headgrader::store

// A SqlConnection to a SQLite file (Debian's libsqlite3, C API): WAL journal, synchronous=FULL
// (a commit is on disk when it returns), a busy timeout so that writers wait for each other
// instead of failing, and each statement prepared once.
// Thread-safety: none; one thread at a time.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sql_connection.h"

struct sqlite3;
struct sqlite3_stmt;

namespace headgrader::store {

// Which file a store's connections use: the file at the path when the first connection opened
// it (its device and inode). Shared by the connections of one store.
// Thread-safety: safe.
class SqliteFileIdentity {
 public:
  // The first call records the file and answers true; later calls answer whether it is that.
  bool same_as_first(dev_t device, ino_t inode);
  // Whether a first file is recorded.
  bool recorded() const;
  // Whether the file now at `path` is the first one; false when it is missing.
  bool still_at(const std::filesystem::path& path) const;

 private:
  mutable std::mutex mutex_;
  std::optional<std::pair<dev_t, ino_t>> first_;
};

class SqliteConnection final : public SqlConnection {
 public:
  // The first connection of `identity` creates a missing file (a missing folder is an error
  // that says so) and records which file it is. Later ones never create it: once the file
  // is deleted or replaced while the server runs, opening is store_unavailable saying so,
  // instead of a new empty file beside the one the others write. Without an identity, a
  // connection of its own that may create the file.
  static Result<std::unique_ptr<SqlConnection>> open(
      const std::filesystem::path& path,
      std::shared_ptr<SqliteFileIdentity> identity = std::make_shared<SqliteFileIdentity>());
  ~SqliteConnection() override;

  Result<std::vector<SqlRow>> query(std::string_view sql,
                                    const std::vector<SqlValue>& params) override;
  Result<bool> exec_script(std::string_view sql) override;
  bool broken() const override { return false; }
  // One stat(2) of the path against the file recorded at the first open.
  Result<bool> still_the_store() override;
  // still_the_store(), then the file's mode: a file nobody may write (chmod a-w, a read-only
  // mount) is not ready, even for root, whom access(2) would let write: an operator who took
  // the write bits away meant the server to stop taking gradings there.
  Result<bool> takes_writes() override;

  // Leaves WAL checkpoints to someone else (store/sqlite/wal_checkpointer.h): after each commit of
  // this connection, `wal_grew` is told how many pages the WAL holds, and this connection
  // checkpoints by itself only once it holds limits::kSqliteCommitterCheckpointPages.
  void checkpoint_elsewhere(std::function<void(int pages)> wal_grew);
  bool checkpoints_elsewhere() const { return static_cast<bool>(wal_grew_); }

 private:
  SqliteConnection(sqlite3* db, std::filesystem::path path,
                   std::shared_ptr<SqliteFileIdentity> identity)
      : db_(db), path_(std::move(path)), identity_(std::move(identity)) {}
  Error error(std::string_view what) const;

  sqlite3* db_;
  std::filesystem::path path_;
  std::shared_ptr<SqliteFileIdentity> identity_;
  struct Prepared {
    sqlite3_stmt* statement;
    // SQLite numbers "$1", "$2", … in the order they first appear; looked up once, here,
    // since a batch's INSERT has thousands (by name each bind was most of a commit's time).
    std::vector<int> index_of;  // index_of[k] is the bind index of "$k+1", 0 when unused
  };
  std::unordered_map<std::string, Prepared> statements_;
  std::function<void(int)> wal_grew_;
};

}  // namespace headgrader::store

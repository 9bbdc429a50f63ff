// A SqlConnection to a SQLite file (Debian's libsqlite3, C API): WAL journal, synchronous=FULL
// (a commit is on disk when it returns), a busy timeout so that writers wait for each other
// instead of failing, and each statement prepared once.
// Thread-safety: none; one thread at a time.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sql_connection.h"

struct sqlite3;
struct sqlite3_stmt;

namespace headgrader::store {

class SqliteConnection final : public SqlConnection {
 public:
  // A missing file is created; a missing folder is an error that says so.
  static Result<std::unique_ptr<SqlConnection>> open(const std::filesystem::path& path);
  ~SqliteConnection() override;

  Result<std::vector<SqlRow>> query(std::string_view sql,
                                    const std::vector<SqlValue>& params) override;
  Result<bool> exec_script(std::string_view sql) override;
  bool broken() const override { return false; }

  // Leaves WAL checkpoints to someone else (store/wal_checkpointer.h): after each commit of
  // this connection, `wal_grew` is told how many pages the WAL holds, and this connection
  // checkpoints by itself only once it holds limits::kSqliteCommitterCheckpointPages.
  void checkpoint_elsewhere(std::function<void(int pages)> wal_grew);
  bool checkpoints_elsewhere() const { return static_cast<bool>(wal_grew_); }

 private:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}
  Error error(std::string_view what) const;

  sqlite3* db_;
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

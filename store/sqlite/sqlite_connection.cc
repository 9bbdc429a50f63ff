#include "sqlite_connection.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <system_error>

#include "common/limits.h"
#include "wal_write_gathering.h"

namespace headgrader::store {
namespace {

std::string shortest(double x) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, x).ptr;
  return std::string(buffer, end);
}

std::string moved_message(const std::filesystem::path& path) {
  return "the SQLite store " + path.string() +
         " was deleted or replaced while the server ran: it is not the file opened at start, "
         "so nothing written now would be kept; restore the file, or restart the server to "
         "use the file now at that path";
}

}  // namespace

bool SqliteFileIdentity::same_as_first(dev_t device, ino_t inode) {
  const std::lock_guard lock(mutex_);
  if (!first_) first_ = std::make_pair(device, inode);
  return *first_ == std::make_pair(device, inode);
}

bool SqliteFileIdentity::recorded() const {
  const std::lock_guard lock(mutex_);
  return first_.has_value();
}

bool SqliteFileIdentity::still_at(const std::filesystem::path& path) const {
  struct stat now {};
  if (::stat(path.c_str(), &now) != 0) return false;
  const std::lock_guard lock(mutex_);
  return first_ && *first_ == std::make_pair(now.st_dev, now.st_ino);
}

Result<std::unique_ptr<SqlConnection>> SqliteConnection::open(
    const std::filesystem::path& path, std::shared_ptr<SqliteFileIdentity> identity) {
  const std::filesystem::path folder =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    return store_error("cannot open the SQLite store " + path.string() + ": the folder " +
                       folder.string() + " does not exist (it is not created)");
  }
  // Only the first connection may create the file: a later one that found none would start
  // an empty store beside the file the others still write (deleted, but open).
  const bool first = !identity->recorded();
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
  if (first) flags |= SQLITE_OPEN_CREATE;
  // The WAL's writes gathered (store/sqlite/wal_write_gathering.h), which needs synchronous=FULL
  // below.
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, wal_write_gathering::name());
  if (rc != SQLITE_OK) {
    std::string reason = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    if (!first && !identity->still_at(path)) return store_error(moved_message(path));
    return store_error("cannot open the SQLite store " + path.string() + ": " + reason);
  }
  struct stat opened {};
  if (::stat(path.c_str(), &opened) != 0 ||
      !identity->same_as_first(opened.st_dev, opened.st_ino)) {
    sqlite3_close(db);
    return store_error(moved_message(path));
  }
  std::unique_ptr<SqliteConnection> connection(new SqliteConnection(db, path, identity));
  sqlite3_busy_timeout(db, static_cast<int>(limits::kStoreBusyTimeout.count()));
  // WAL: readers never wait for the writer; FULL: the WAL is synced at each commit, so an
  // answered grading survives a crash of the process and of the machine. SQLite's default
  // 4 KiB pages: a group commit rewrites the last page of the table and of each of its
  // indexes, so larger pages are more bytes to write and sync per commit (16 KiB pages cost
  // 15 % of the throughput on a disk whose syncs take milliseconds). Temporary tables and
  // the statement journal of a batch's INSERTs in memory: on files they were an
  // open, a write and an unlink per transaction. (docs/benchmarks-store.md, 2026-12-02.)
  if (auto r = connection->exec_script("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; "
                                       "PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY");
      !r) {
    return store_error("cannot open the SQLite store " + path.string() + ": " + r.error().message);
  }
  return std::unique_ptr<SqlConnection>(std::move(connection));
}

SqliteConnection::~SqliteConnection() {
  for (auto& [sql, prepared] : statements_) sqlite3_finalize(prepared.statement);
  sqlite3_close(db_);
}

void SqliteConnection::checkpoint_elsewhere(std::function<void(int pages)> wal_grew) {
  wal_grew_ = std::move(wal_grew);
  // The hook replaces SQLite's own autocheckpoint, which is a hook of the same kind.
  sqlite3_wal_hook(
      db_,
      [](void* self, sqlite3* db, const char* name, int pages) {
        // Past the limit this connection copies what is left by itself: no commit can come
        // between its checkpoint and its next one, which then restarts the WAL. (Busy when
        // the checkpoint thread is copying just then: the next commit tries again.)
        if (pages >= limits::kSqliteCommitterCheckpointPages) {
          (void)sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
        } else {
          static_cast<SqliteConnection*>(self)->wal_grew_(pages);
        }
        return SQLITE_OK;
      },
      this);
}

Result<bool> SqliteConnection::still_the_store() {
  if (!identity_->still_at(path_)) return store_error(moved_message(path_));
  return true;
}

Result<bool> SqliteConnection::takes_writes() {
  if (Result<bool> same = still_the_store(); !same) return same;
  struct stat file {};
  if (::stat(path_.c_str(), &file) != 0 || (file.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 ||
      ::access(path_.c_str(), W_OK) != 0) {
    return store_error("the SQLite store " + path_.string() +
                       " cannot be written (its mode, owner or file system refuses); gradings "
                       "could not be kept");
  }
  return true;
}

Error SqliteConnection::error(std::string_view what) const {
  return store_error("SQLite: " + std::string(what) + ": " + sqlite3_errmsg(db_));
}

Result<std::vector<SqlRow>> SqliteConnection::query(std::string_view sql,
                                                    const std::vector<SqlValue>& params) {
  const std::string key(sql);
  auto found = statements_.find(key);
  if (found == statements_.end()) {
    sqlite3_stmt* prepared = nullptr;
    if (sqlite3_prepare_v3(db_, key.c_str(), static_cast<int>(key.size()),
                           SQLITE_PREPARE_PERSISTENT, &prepared, nullptr) != SQLITE_OK) {
      return error("preparing a statement");
    }
    std::vector<int> index_of(params.size());
    for (std::size_t i = 0; i < params.size(); ++i) {
      index_of[i] = sqlite3_bind_parameter_index(prepared, ("$" + std::to_string(i + 1)).c_str());
    }
    found = statements_.emplace(key, Prepared{prepared, std::move(index_of)}).first;
  }
  sqlite3_stmt* const statement = found->second.statement;
  const std::vector<int>& index_of = found->second.index_of;
  sqlite3_reset(statement);
  sqlite3_clear_bindings(statement);
  for (std::size_t i = 0; i < params.size() && i < index_of.size(); ++i) {
    const int index = index_of[i];
    if (index == 0) continue;  // not used by this statement
    const SqlValue& value = params[i];
    int rc = SQLITE_OK;
    if (const auto* text = std::get_if<std::string>(&value)) {
      rc = sqlite3_bind_text(statement, index, text->data(), static_cast<int>(text->size()),
                             SQLITE_STATIC);  // `params` outlives the statement's run
    } else if (const auto* integer = std::get_if<std::int64_t>(&value)) {
      rc = sqlite3_bind_int64(statement, index, *integer);
    } else if (const auto* real = std::get_if<double>(&value)) {
      rc = sqlite3_bind_double(statement, index, *real);
    } else {
      rc = sqlite3_bind_null(statement, index);
    }
    if (rc != SQLITE_OK) return error("binding a parameter");
  }
  std::vector<SqlRow> rows;
  for (;;) {
    const int rc = sqlite3_step(statement);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) {
      Error failure = error("running a statement");
      sqlite3_reset(statement);
      sqlite3_clear_bindings(statement);  // the texts were bound without a copy
      return failure;
    }
    const int columns = sqlite3_column_count(statement);
    SqlRow row(static_cast<std::size_t>(columns));
    for (int c = 0; c < columns; ++c) {
      switch (sqlite3_column_type(statement, c)) {
        case SQLITE_NULL:
          break;
        case SQLITE_FLOAT:  // sqlite's own text has 15 digits: not a round trip
          row[static_cast<std::size_t>(c)] = shortest(sqlite3_column_double(statement, c));
          break;
        default: {
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, c));
          row[static_cast<std::size_t>(c)] =
              std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(statement, c)));
        }
      }
    }
    rows.push_back(std::move(row));
  }
  sqlite3_reset(statement);
  sqlite3_clear_bindings(statement);  // the texts were bound without a copy
  return rows;
}

Result<bool> SqliteConnection::exec_script(std::string_view sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string reason = message != nullptr ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    return store_error("SQLite: " + reason);
  }
  return true;
}

}  // namespace headgrader::store

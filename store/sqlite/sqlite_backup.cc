#include "sqlite_backup.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "common/limits.h"
#include "sql_connection.h"

namespace headgrader::store {
namespace {

Error backup_error(std::string message, std::string field) {
  Error error = store_error(std::move(message));
  error.field = std::move(field);
  return error;
}

// A database handle closed when the scope ends, whatever way it ends.
struct Database {
  sqlite3* db = nullptr;
  ~Database() { sqlite3_close(db); }
  std::string reason() const { return db != nullptr ? sqlite3_errmsg(db) : "out of memory"; }
};

// fsync(2) of the file or folder at `path`; empty when done, else the reason.
std::string sync_path(const std::filesystem::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  std::string reason;
  if (::fsync(fd) != 0) reason = std::strerror(errno);
  ::close(fd);
  return reason;
}

Result<BackupSummary> copy_into(const std::filesystem::path& source,
                                const std::filesystem::path& out) {
  Database from;
  // Read-write without create: a WAL database is read through its shared-memory index, which
  // a reader maps for writing; nothing is written to the database itself.
  if (sqlite3_open_v2(source.c_str(), &from.db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    return backup_error("cannot open the SQLite store " + source.string() + ": " + from.reason(),
                        "store");
  }
  sqlite3_busy_timeout(from.db, static_cast<int>(limits::kStoreBusyTimeout.count()));
  // One read snapshot for every step: without it each step would read the newest state and
  // SQLite would restart the copy from its first page after every commit of a server, so that
  // a busy store might never be copied. In WAL mode the snapshot blocks no writer.
  char* message = nullptr;
  if (sqlite3_exec(from.db, "BEGIN; SELECT COUNT(*) FROM sqlite_master", nullptr, nullptr,
                   &message) != SQLITE_OK) {
    std::string reason = message != nullptr ? message : from.reason();
    sqlite3_free(message);
    return backup_error(
        "cannot read the SQLite store " + source.string() + ": " + reason + " (is it a store?)",
        "store");
  }

  Database to;
  if (sqlite3_open_v2(out.c_str(), &to.db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    return backup_error("cannot open " + out.string() + ": " + to.reason(), "out");
  }
  sqlite3_backup* backup = sqlite3_backup_init(to.db, "main", from.db, "main");
  if (backup == nullptr) {
    return backup_error("cannot start the backup: " + to.reason(), "out");
  }
  BackupSummary summary;
  int rc = SQLITE_OK;
  for (;;) {
    rc = sqlite3_backup_step(backup, limits::kBackupStepPages);
    if (rc == SQLITE_DONE) break;
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
      ++summary.busy_waits;
      sqlite3_sleep(static_cast<int>(limits::kBackupBusySleep.count()));
      continue;
    }
    if (rc != SQLITE_OK) break;
  }
  summary.pages = sqlite3_backup_pagecount(backup);
  sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) {
    return backup_error(std::string("the backup failed: ") + sqlite3_errstr(rc), "store");
  }
  (void)sqlite3_exec(from.db, "COMMIT", nullptr, nullptr, nullptr);

  // The copy checked as a restore would read it: every page, index and constraint.
  sqlite3_stmt* statement = nullptr;
  std::string verdict;
  if (sqlite3_prepare_v2(to.db, "PRAGMA integrity_check", -1, &statement, nullptr) == SQLITE_OK) {
    while (sqlite3_step(statement) == SQLITE_ROW) {
      const auto* text = sqlite3_column_text(statement, 0);
      if (!verdict.empty()) verdict += "; ";
      verdict += text != nullptr ? reinterpret_cast<const char*>(text) : "";
    }
  }
  sqlite3_finalize(statement);
  if (verdict != "ok") {
    return backup_error("the copy " + out.string() + " failed PRAGMA integrity_check: " +
                            (verdict.empty() ? to.reason() : verdict),
                        "out");
  }
  statement = nullptr;
  if (sqlite3_prepare_v2(to.db, "SELECT COUNT(*) FROM submissions", -1, &statement, nullptr) ==
          SQLITE_OK &&
      sqlite3_step(statement) == SQLITE_ROW) {
    summary.records = sqlite3_column_int64(statement, 0);
  }
  sqlite3_finalize(statement);
  return summary;
}

}  // namespace

Result<BackupSummary> backup_sqlite(const std::filesystem::path& source,
                                    const std::filesystem::path& out) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(source, ec)) {
    return backup_error("the SQLite store " + source.string() + " does not exist", "store");
  }
  // Created here, exclusively, before SQLite sees the path: a file already there (another
  // backup, the store itself under another name) is never touched.
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int error = errno;
    if (error == EEXIST) {
      return backup_error(
          out.string() + " exists; a backup never overwrites a file: name a new one", "out");
    }
    return backup_error("cannot create " + out.string() + ": " + std::strerror(error), "out");
  }
  ::close(fd);
  Result<BackupSummary> copied = copy_into(source, out);
  if (copied) {
    // The copy's connection is closed: SQLite checkpointed and removed its WAL, so the file
    // holds every page; it, then its folder's entry for it, are made durable.
    const std::filesystem::path folder =
        out.has_parent_path() ? out.parent_path() : std::filesystem::path(".");
    std::string reason = sync_path(out, O_RDONLY);
    if (reason.empty()) reason = sync_path(folder, O_RDONLY | O_DIRECTORY);
    if (!reason.empty()) {
      copied = backup_error("cannot sync the copy " + out.string() + ": " + reason, "out");
    } else {
      BackupSummary summary = *copied;
      summary.bytes = static_cast<std::int64_t>(std::filesystem::file_size(out, ec));
      return summary;
    }
  }
  std::filesystem::remove(out, ec);
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    std::filesystem::remove(out.string() + suffix, ec);
  }
  return copied;
}

}  // namespace headgrader::store

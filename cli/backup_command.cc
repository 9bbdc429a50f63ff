#include "backup_command.h"

#include <iostream>
#include <string_view>

#include "sqlite/sqlite_backup.h"
#include "usage_error.h"

namespace headgrader::cli {
namespace {

constexpr const char* kBackupUsage =
    "usage:\n"
    "  headgrader backup --store sqlite:PATH --out FILE\n"
    "      Copies the SQLite store at PATH into FILE (which must not exist) while servers\n"
    "      keep writing to it, checks the copy (PRAGMA integrity_check) and syncs it.\n"
    "      For a PostgreSQL store use pg_dump (docs/operations.md).\n";

}  // namespace

int backup_command(const std::vector<std::string>& args) {
  std::string url, out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if ((args[i] == "--store" || args[i] == "--out") && i + 1 == args.size()) {
      return usage_error(args[i] + " needs a value", kBackupUsage);
    }
    if (args[i] == "--store") {
      url = args[++i];
    } else if (args[i] == "--out") {
      out = args[++i];
    } else {
      return usage_error("unexpected argument \"" + args[i] + "\"", kBackupUsage);
    }
  }
  if (url.empty()) return usage_error("backup needs --store sqlite:PATH", kBackupUsage);
  if (out.empty()) return usage_error("backup needs --out FILE", kBackupUsage);
  constexpr std::string_view kSqlite = "sqlite:";
  if (url.starts_with("postgresql://") || url.starts_with("postgres://")) {
    return usage_error(
        "backup copies SQLite stores; for a PostgreSQL store use pg_dump --format=custom "
        "(docs/operations.md, \"Backup and restore\")",
        kBackupUsage);
  }
  if (!url.starts_with(kSqlite) || url.size() == kSqlite.size()) {
    return usage_error("--store must be sqlite:PATH, e.g. sqlite:headgrader.db", kBackupUsage);
  }
  auto copied = store::backup_sqlite(url.substr(kSqlite.size()), out);
  if (!copied) {
    std::cerr << "backup failed: " << copied.error().message << "\n";
    return 1;
  }
  std::cout << "wrote " << out << ": " << copied->pages << " pages, " << copied->bytes << " bytes";
  if (copied->records) std::cout << ", " << *copied->records << " records";
  std::cout << "; integrity_check ok, synced\n";
  return 0;
}

}  // namespace headgrader::cli

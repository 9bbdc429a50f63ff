// `headgrader backup --store sqlite:PATH --out FILE` (API.md §17; store/sqlite/sqlite_backup.h):
// a consistent copy of a SQLite store taken while servers write to it, into a new file.
// PostgreSQL stores are copied with pg_dump (docs/operations.md).
#pragma once

#include <string>
#include <vector>

namespace headgrader::cli {

// `args` after "backup". Exit status: 0 the copy is written, checked and synced (a line on
// stdout says what it holds), 1 it could not be (the reason on stderr, nothing left at
// FILE), 2 the command is wrong.
int backup_command(const std::vector<std::string>& args);

}  // namespace headgrader::cli

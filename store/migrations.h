// The store's schema as numbered migrations, the same for SQLite and PostgreSQL (the SQL is
// written in the part both understand), and the routine that brings a database up to date at
// start: a `schema_version` table says which have run; each migration runs in a transaction of
// its own with its version. PostgreSQL holds an advisory lock meanwhile, so that two servers
// starting at once do not both migrate; SQLite's write lock (BEGIN IMMEDIATE) does the same.
// Thread-safety: migrate() uses only the connection it is given.
#pragma once

#include <string_view>
#include <vector>

#include "sql_connection.h"

namespace headgrader::store {

// Migration i (1-based) is element i - 1. Append only: a migration that has shipped never
// changes.
const std::vector<std::string_view>& migrations();

// Errors: store_unavailable when a statement fails, or when the database's schema is newer
// than this program's (a newer server migrated it).
Result<int> migrate(SqlConnection& connection, Dialect dialect);

}  // namespace headgrader::store

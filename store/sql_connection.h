// One connection to a SQL database, as the store's shared code sees it: a statement with
// positional parameters written $1, $2, … (both SQLite and PostgreSQL read that form), its rows
// as optional texts, and a script of several statements without parameters (migrations).
// Each implementation keeps every statement it ran prepared, keyed by its text.
// Thread-safety: none; one thread at a time (the pool hands a connection to one user).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/result.h"

namespace headgrader::store {

enum class Dialect { kSqlite, kPostgres };

// NULL, text, integer or double.
using SqlValue = std::variant<std::monostate, std::string, std::int64_t, double>;
using SqlRow = std::vector<std::optional<std::string>>;  // a double as its shortest round trip

inline SqlValue sql_text(const std::optional<std::string>& text) {
  if (!text) return std::monostate{};
  return *text;
}

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  // Runs one statement; its rows (none for a statement without RETURNING or SELECT).
  // Errors: store_unavailable with the database's reason.
  virtual Result<std::vector<SqlRow>> query(std::string_view sql,
                                            const std::vector<SqlValue>& params) = 0;
  // Runs statements separated by ';' with no parameters.
  virtual Result<bool> exec_script(std::string_view sql) = 0;
  // The connection can no longer be used (PostgreSQL: the server went away); drop it.
  virtual bool broken() const = 0;
  // Whether what was just committed is in the store the server was started on, asked after
  // each commit and before anyone is told their grading is kept. SQLite: the file at the path
  // is still the file open (deleted or replaced, a commit lands in a file no restart will
  // read); error store_unavailable saying so. A server database cannot go that way: true.
  virtual Result<bool> still_the_store() { return true; }
  // Whether a write would be taken now, asked by the readiness probe (GET /readyz) beside a
  // SELECT 1. SQLite: the file is still the one opened and may be written (error
  // store_unavailable saying why not). A server database answers this with its SELECT: true.
  virtual Result<bool> takes_writes() { return true; }
};

// The store's error, with the reason.
inline Error store_error(std::string message) {
  return Error{ErrorCode::kStoreUnavailable, std::move(message), ""};
}

}  // namespace headgrader::store

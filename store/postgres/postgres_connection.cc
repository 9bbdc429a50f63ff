#include "postgres_connection.h"

#include <libpq-fe.h>

#include <charconv>

#include "common/limits.h"

namespace headgrader::store {
namespace {

// A number in PostgreSQL's text format (texts are passed as they are, without a copy).
std::string number_text(const SqlValue& value) {
  if (const auto* integer = std::get_if<std::int64_t>(&value)) return std::to_string(*integer);
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, std::get<double>(value)).ptr;
  return std::string(buffer, end);
}

// libpq's message, without its trailing newline.
std::string trimmed(const char* message) {
  std::string text = message != nullptr ? message : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

Result<std::unique_ptr<SqlConnection>> PostgresConnection::open(const std::string& uri) {
  // Keywords beside the URI, so that the URI's own settings stay as given.
  const std::string timeout = std::to_string(limits::kPostgresConnectTimeout.count());
  const std::string options =
      "-c statement_timeout=" + std::to_string(limits::kPostgresStatementTimeout.count() * 1000) +
      " -c client_min_messages=warning";
  const char* keywords[] = {"dbname", "connect_timeout", "options", "application_name", nullptr};
  const char* values[] = {uri.c_str(), timeout.c_str(), options.c_str(), "headgrader", nullptr};
  PGconn* conn = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn == nullptr) return store_error("cannot connect to PostgreSQL: out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    // libpq's reason names the host and port, never the password.
    std::string reason = trimmed(PQerrorMessage(conn));
    PQfinish(conn);
    return store_error("cannot connect to PostgreSQL: " + reason);
  }
  return std::unique_ptr<SqlConnection>(new PostgresConnection(conn));
}

PostgresConnection::~PostgresConnection() { PQfinish(conn_); }

bool PostgresConnection::broken() const { return PQstatus(conn_) != CONNECTION_OK; }

Error PostgresConnection::error(std::string_view what) {
  return store_error("PostgreSQL: " + std::string(what) + ": " + trimmed(PQerrorMessage(conn_)));
}

std::optional<Error> PostgresConnection::failed(PGresult* result, std::string_view what) {
  const ExecStatusType status = PQresultStatus(result);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return std::nullopt;
  // The SQLSTATE is what callers branch on (a unique violation is a lost race, not a fault).
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  last_sqlstate_ = state != nullptr ? state : "";
  // A null result is libpq out of memory or the connection gone: its reason is the
  // connection's, not a result's.
  Error failure = result != nullptr
                      ? store_error("PostgreSQL: " + trimmed(PQresultErrorMessage(result)))
                      : error(what);
  PQclear(result);
  return failure;
}

Result<std::vector<SqlRow>> PostgresConnection::query(std::string_view sql,
                                                      const std::vector<SqlValue>& params) {
  last_sqlstate_.clear();
  const std::string key(sql);
  auto found = statements_.find(key);
  if (found == statements_.end()) {
    const std::string name = "s" + std::to_string(statements_.size());
    PGresult* prepared =
        PQprepare(conn_, name.c_str(), key.c_str(), static_cast<int>(params.size()), nullptr);
    const bool ok = PQresultStatus(prepared) == PGRES_COMMAND_OK;
    if (!ok) {
      const char* state = PQresultErrorField(prepared, PG_DIAG_SQLSTATE);
      last_sqlstate_ = state != nullptr ? state : "";
      Error failure = store_error("PostgreSQL: preparing a statement: " +
                                  trimmed(PQresultErrorMessage(prepared)));
      PQclear(prepared);
      return failure;
    }
    PQclear(prepared);
    found = statements_.emplace(key, name).first;
  }
  // A text parameter is read where it is: a record's submission and answer (most of its
  // bytes) are not copied once more on the committer's thread, which every grading waits for.
  std::vector<std::string> numbers(params.size());
  std::vector<const char*> values(params.size(), nullptr);
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (std::holds_alternative<std::monostate>(params[i])) continue;
    if (const auto* text = std::get_if<std::string>(&params[i])) {
      values[i] = text->c_str();
      continue;
    }
    numbers[i] = number_text(params[i]);
    values[i] = numbers[i].c_str();
  }
  PGresult* result = PQexecPrepared(conn_, found->second.c_str(), static_cast<int>(values.size()),
                                    values.data(), nullptr, nullptr, 0);
  if (std::optional<Error> failure = failed(result, "running a statement")) return *failure;
  std::vector<SqlRow> rows;
  const int count = PQntuples(result);
  const int columns = PQnfields(result);
  rows.reserve(static_cast<std::size_t>(count));
  for (int r = 0; r < count; ++r) {
    SqlRow row(static_cast<std::size_t>(columns));
    for (int c = 0; c < columns; ++c) {
      if (PQgetisnull(result, r, c)) continue;
      row[static_cast<std::size_t>(c)] = std::string(
          PQgetvalue(result, r, c), static_cast<std::size_t>(PQgetlength(result, r, c)));
    }
    rows.push_back(std::move(row));
  }
  PQclear(result);
  return rows;
}

Result<bool> PostgresConnection::exec_script(std::string_view sql) {
  last_sqlstate_.clear();
  PGresult* result = PQexec(conn_, std::string(sql).c_str());
  if (std::optional<Error> failure = failed(result, "running a script")) return *failure;
  PQclear(result);
  return true;
}

}  // namespace headgrader::store

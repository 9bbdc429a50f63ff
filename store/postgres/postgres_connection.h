// A SqlConnection to PostgreSQL over libpq (Debian's libpq-dev, C API): each statement prepared
// once per connection (PQprepare, then PQexecPrepared), parameters and rows as text.
// statement_timeout bounds every statement; a connection whose server went away reports
// broken() so that its pool drops it and connects again.
// Thread-safety: none; one thread at a time.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "sql_connection.h"

typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;

namespace headgrader::store {

class PostgresConnection final : public SqlConnection {
 public:
  // `uri`: libpq's postgresql://USER:PASSWORD@HOST:PORT/DB. The error never repeats the
  // password.
  static Result<std::unique_ptr<SqlConnection>> open(const std::string& uri);
  ~PostgresConnection() override;

  Result<std::vector<SqlRow>> query(std::string_view sql,
                                    const std::vector<SqlValue>& params) override;
  Result<bool> exec_script(std::string_view sql) override;
  bool broken() const override;

  // The SQLSTATE of the last failed statement ("40P01": deadlock), "" when none.
  const std::string& last_sqlstate() const { return last_sqlstate_; }

 private:
  explicit PostgresConnection(PGconn* conn) : conn_(conn) {}
  Error error(std::string_view what);
  // nullopt when `result` succeeded; else the failure (the SQLSTATE kept), `result` cleared.
  std::optional<Error> failed(PGresult* result, std::string_view what);

  PGconn* conn_;
  std::unordered_map<std::string, std::string> statements_;  // text → prepared name
  std::string last_sqlstate_;
};

}  // namespace headgrader::store

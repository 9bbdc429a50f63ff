// SqlStore's LTI tables: the passback outbox, single-use values and student tokens.
#include <algorithm>
#include <chrono>

#include "common/limits.h"
#include "lti_columns.h"
#include "sql_rows.h"
#include "sql_store.h"

namespace headgrader::store {
namespace {

SqlValue optional_status(std::optional<int> status) {
  if (!status) return std::monostate{};
  return std::int64_t{*status};
}

}  // namespace

std::string_view to_string(PassbackStatus status) {
  switch (status) {
    case PassbackStatus::kPending:
      return "pending";
    case PassbackStatus::kSent:
      return "sent";
    case PassbackStatus::kFailed:
      return "failed";
  }
  return "pending";
}

std::optional<PassbackStatus> parse_passback_status(std::string_view text) {
  if (text == "pending") return PassbackStatus::kPending;
  if (text == "sent") return PassbackStatus::kSent;
  if (text == "failed") return PassbackStatus::kFailed;
  return std::nullopt;
}

// A claim moves the items' next attempt to the lease's end, in one transaction: another
// claim (on this server or another) skips them until then. PostgreSQL's SKIP LOCKED lets two
// claims at once take different items instead of waiting; SQLite's BEGIN IMMEDIATE makes
// them take turns.
Result<std::vector<PassbackItem>> SqlStore::claim_passbacks(TimeMs now, TimeMs lease, int limit) {
  Result<ConnectionPool::Lease> borrowed = pool_.borrow();
  if (!borrowed) return borrowed.error();
  SqlConnection& db = **borrowed;
  const bool pg = dialect_ == Dialect::kPostgres;
  if (auto r = db.exec_script(pg ? "BEGIN" : "BEGIN IMMEDIATE"); !r) return r.error();
  auto claimed = db.query(
      "UPDATE passback SET next_attempt_ms = $2 WHERE id IN (SELECT id FROM passback WHERE "
      "status = 'pending' AND next_attempt_ms <= $1 ORDER BY next_attempt_ms, id LIMIT $3" +
          std::string(pg ? " FOR UPDATE SKIP LOCKED" : "") + ") RETURNING " +
          columns::passback_select_list(),
      {now, now + lease, std::int64_t{std::max(limit, 1)}});
  if (!claimed) {
    (void)db.exec_script("ROLLBACK");
    return claimed.error();
  }
  if (auto r = db.exec_script("COMMIT"); !r) {
    (void)db.exec_script("ROLLBACK");
    return r.error();
  }
  std::vector<PassbackItem> items;
  for (const SqlRow& row : *claimed) items.push_back(columns::passback_item(row));
  std::sort(items.begin(), items.end(), [](const PassbackItem& a, const PassbackItem& b) {
    return std::pair(a.next_attempt, a.id) < std::pair(b.next_attempt, b.id);
  });
  return items;
}

Result<bool> SqlStore::mark_passback(std::string_view id, std::string_view status,
                                     std::optional<int> http_status, std::string_view error,
                                     TimeMs next_attempt) {
  auto marked = run(
      "UPDATE passback SET status = $2, attempts = attempts + 1, last_status = $3, last_error = "
      "$4, next_attempt_ms = $5 WHERE id = $1 RETURNING id",
      {std::string(id), std::string(status), optional_status(http_status), std::string(error),
       next_attempt});
  if (!marked) return marked.error();
  return !marked->empty();
}

Result<bool> SqlStore::mark_passback_sent(std::string_view id, int http_status) {
  return mark_passback(id, "sent", http_status, "", 0);
}

Result<bool> SqlStore::mark_passback_failed(std::string_view id, std::optional<int> http_status,
                                            std::string_view error) {
  return mark_passback(id, "failed", http_status, error, 0);
}

Result<bool> SqlStore::mark_passback_retry(std::string_view id, std::optional<int> http_status,
                                           std::string_view error, TimeMs next_attempt) {
  return mark_passback(id, "pending", http_status, error, next_attempt);
}

Result<bool> SqlStore::retry_passback(std::string_view id, TimeMs now) {
  auto retried =
      run("UPDATE passback SET status = 'pending', next_attempt_ms = $2 WHERE id = $1 AND "
          "status = 'failed' RETURNING id",
          {std::string(id), now});
  if (!retried) return retried.error();
  return !retried->empty();
}

Result<PassbackCounts> SqlStore::count_passbacks() {
  auto found = run("SELECT status, COUNT(*) FROM passback GROUP BY status", {});
  if (!found) return found.error();
  PassbackCounts counts;
  for (const SqlRow& row : *found) {
    const std::optional<PassbackStatus> status =
        row[0] ? parse_passback_status(*row[0]) : std::nullopt;
    if (!status) continue;
    const std::int64_t n = rows::integer(row[1]);
    switch (*status) {
      case PassbackStatus::kPending:
        counts.pending = n;
        break;
      case PassbackStatus::kSent:
        counts.sent = n;
        break;
      case PassbackStatus::kFailed:
        counts.failed = n;
        break;
    }
  }
  return counts;
}

Result<std::vector<PassbackItem>> SqlStore::list_passbacks(std::optional<PassbackStatus> status,
                                                           int limit) {
  std::vector<SqlValue> params = {std::int64_t{std::max(limit, 1)}};
  std::string where;
  if (status) {
    params.emplace_back(std::string(to_string(*status)));
    where = " WHERE status = $2";
  }
  auto found = run("SELECT " + columns::passback_select_list() + " FROM passback" + where +
                       " ORDER BY created_ms DESC, id DESC LIMIT $1",
                   params);
  if (!found) return found.error();
  std::vector<PassbackItem> items;
  for (const SqlRow& row : *found) items.push_back(columns::passback_item(row));
  return items;
}

// A row is written (RETURNING gives it back) only when the value is new or its earlier use
// has expired.
Result<bool> SqlStore::use_once(std::string_view value, TimeMs expires, TimeMs now) {
  auto used = run(
      "INSERT INTO single_use (value, expires_ms) VALUES ($1, $2) ON CONFLICT (value) DO UPDATE "
      "SET expires_ms = excluded.expires_ms WHERE single_use.expires_ms <= $3 RETURNING value",
      {std::string(value), expires, now});
  if (!used) return used.error();
  return !used->empty();
}

Result<bool> SqlStore::put_once(std::string_view value, TimeMs expires) {
  // Values expire by the hour; dropping the long-expired ones here keeps the table small.
  const TimeMs retention =
      std::chrono::duration_cast<std::chrono::milliseconds>(limits::kStoreOnceRetention).count();
  if (auto purged = run("DELETE FROM single_use WHERE expires_ms < $1", {expires - retention});
      !purged) {
    return purged.error();
  }
  auto put = run(
      "INSERT INTO single_use (value, expires_ms) VALUES ($1, $2) ON CONFLICT (value) DO UPDATE "
      "SET expires_ms = excluded.expires_ms",
      {std::string(value), expires});
  if (!put) return put.error();
  return true;
}

Result<bool> SqlStore::take_once(std::string_view value, TimeMs now) {
  auto taken = run("DELETE FROM single_use WHERE value = $1 AND expires_ms > $2 RETURNING value",
                   {std::string(value), now});
  if (!taken) return taken.error();
  return !taken->empty();
}

Result<bool> SqlStore::put_student_token(const StudentToken& token) {
  auto put = run("INSERT INTO student_tokens (" + columns::student_token_select_list() +
                     ") VALUES (" + columns::student_token_placeholders() + ")",
                 columns::student_token_binds(token));
  if (!put) return put.error();
  return true;
}

Result<std::optional<StudentToken>> SqlStore::find_student_token(std::string_view token_sha256,
                                                                 TimeMs now) {
  auto found = run("SELECT " + columns::student_token_select_list() +
                       " FROM student_tokens WHERE token_sha256 = $1 AND expires_ms > $2",
                   {std::string(token_sha256), now});
  if (!found) return found.error();
  if (found->empty()) return std::optional<StudentToken>();
  return std::optional<StudentToken>(columns::student_token(found->front()));
}

}  // namespace headgrader::store

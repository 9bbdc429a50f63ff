// SqlStore's deletions (store/record_deletion.h): retention's batches, a student's data and
// the audit.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "sql_store.h"

namespace headgrader::store {
namespace {

// "($1, $2, …, $n)" for `n` parameters after the first `offset`.
std::string placeholders(std::size_t n, std::size_t offset = 0) {
  std::string list = "(";
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) list += ", ";
    list += "$" + std::to_string(offset + i + 1);
  }
  return list + ")";
}

// Runs `work` on a pooled connection inside one transaction, on SQLite with the write lock
// taken first so that the rows it reads are the rows it deletes: committed when `work` gives a
// count, rolled back when it (or the commit) gives an error.
Result<std::int64_t> in_transaction(
    ConnectionPool& pool, Dialect dialect,
    const std::function<Result<std::int64_t>(SqlConnection&)>& work) {
  Result<ConnectionPool::Lease> borrowed = pool.borrow();
  if (!borrowed) return borrowed.error();
  SqlConnection& db = **borrowed;
  if (auto r = db.exec_script(dialect == Dialect::kSqlite ? "BEGIN IMMEDIATE" : "BEGIN"); !r) {
    return r.error();
  }
  Result<std::int64_t> done = work(db);
  if (done) {
    auto committed = db.exec_script("COMMIT");
    if (committed) return done;
    done = committed.error();
  }
  (void)db.exec_script("ROLLBACK");
  return done;
}

}  // namespace

Result<std::int64_t> SqlStore::delete_records_before(TimeMs before, int limit) {
  return in_transaction(pool_, dialect_, [&](SqlConnection& db) -> Result<std::int64_t> {
    // The oldest first (submissions_by_time), each without a passback or with one sent (its
    // UNIQUE index answers NOT EXISTS).
    auto due = db.query(
        "SELECT id FROM submissions s WHERE time_ms < $1 AND NOT EXISTS (SELECT 1 FROM passback "
        "p WHERE p.submission_id = s.id AND p.status <> 'sent') ORDER BY time_ms, id LIMIT $2",
        {before, std::int64_t{limit}});
    if (!due) return due.error();
    std::vector<SqlValue> ids;
    for (const SqlRow& row : *due) ids.emplace_back(*row[0]);
    if (ids.empty()) return std::int64_t{0};
    const std::string in = placeholders(ids.size());
    if (auto r = db.query("DELETE FROM passback WHERE submission_id IN " + in, ids); !r) {
      return r.error();
    }
    auto gone = db.query("DELETE FROM submissions WHERE id IN " + in + " RETURNING id", ids);
    if (!gone) return gone.error();
    return static_cast<std::int64_t>(gone->size());
  });
}

Result<std::int64_t> SqlStore::delete_student(std::string_view student, AuditEntry audit) {
  return in_transaction(pool_, dialect_, [&](SqlConnection& db) -> Result<std::int64_t> {
    const std::vector<SqlValue> who = {std::string(student)};
    // The passbacks first: each refers to its record.
    for (const char* sql :
         {"DELETE FROM passback WHERE submission_id IN (SELECT id FROM submissions WHERE "
          "student = $1)",
          "DELETE FROM student_tokens WHERE student = $1",
          "DELETE FROM passback_latest WHERE student = $1"}) {
      if (auto r = db.query(sql, who); !r) return r.error();
    }
    auto gone = db.query("DELETE FROM submissions WHERE student = $1 RETURNING id", who);
    if (!gone) return gone.error();
    audit.deleted = static_cast<std::int64_t>(gone->size());
    if (auto r = db.query("INSERT INTO audit (id, at_ms, key_name, student_sha256, deleted) "
                          "VALUES ($1, $2, $3, $4, $5)",
                          {audit.id, audit.at, audit.key, audit.student_sha256, audit.deleted});
        !r) {
      return r.error();
    }
    return audit.deleted;
  });
}

Result<AuditPage> SqlStore::list_audit(int limit, std::string_view cursor) {
  // The cursor is the id of the last entry of the page before (ids sort by time).
  const bool hex = std::all_of(cursor.begin(), cursor.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
  if (!hex || (!cursor.empty() && cursor.size() != 28)) {
    return Error{ErrorCode::kBadRequest, "cursor is not one that this server gave as next_cursor",
                 "cursor"};
  }
  auto rows =
      cursor.empty()
          ? run("SELECT id, at_ms, key_name, student_sha256, deleted FROM audit ORDER BY id DESC "
                "LIMIT $1",
                {std::int64_t{limit} + 1})
          : run("SELECT id, at_ms, key_name, student_sha256, deleted FROM audit WHERE id < $1 "
                "ORDER BY id DESC LIMIT $2",
                {std::string(cursor), std::int64_t{limit} + 1});
  if (!rows) return rows.error();
  AuditPage page;
  for (const SqlRow& row : *rows) {
    if (static_cast<int>(page.entries.size()) == limit) {
      page.next_cursor = page.entries.back().id;
      break;
    }
    page.entries.push_back({*row[0], std::stoll(*row[1]), *row[2], *row[3], std::stoll(*row[4])});
  }
  return page;
}

}  // namespace headgrader::store

#include "sql_store.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

#include "headgrader/limits.h"
#include "migrations.h"
#include "postgres_connection.h"
#include "sql_rows.h"
#include "sqlite_connection.h"

namespace headgrader::store {
namespace {

constexpr std::string_view kColumns =
    "id, time_ms, problem, problem_sha256, student, key_name, body, passed, score, tests_total, "
    "tests_passed, tests_failed, failing_inputs, answer, regrade_of, idem_scope, idem_key, "
    "idem_body_sha256, lms_context, lms_resource_link";
// The list leaves out the two large texts (GET /v1/submissions shows records without them).
constexpr std::string_view kListColumns =
    "id, time_ms, problem, problem_sha256, student, key_name, '', passed, score, tests_total, "
    "tests_passed, tests_failed, failing_inputs, '', regrade_of, idem_scope, idem_key, "
    "idem_body_sha256, lms_context, lms_resource_link";

constexpr std::size_t kInsertColumns = 20;
constexpr std::string_view kInsertHead =
    "INSERT INTO submissions (id, time_ms, problem, problem_sha256, student, key_name, body, "
    "passed, score, tests_total, tests_passed, tests_failed, failing_inputs, answer, regrade_of, "
    "idem_scope, idem_key, idem_body_sha256, lms_context, lms_resource_link) VALUES";
constexpr std::string_view kInsertTail =
    " ON CONFLICT (idem_scope, idem_key) DO NOTHING RETURNING id";
constexpr std::string_view kInsertPassback =
    "INSERT INTO passback (id, submission_id, issuer, client_id, lineitem, payload, status, "
    "attempts, last_status, last_error, next_attempt_ms, created_ms) VALUES ($1, $2, $3, $4, $5, "
    "$6, 'pending', 0, NULL, '', $7, $7)";

std::string failing_inputs_json(const std::vector<std::string>& inputs) {
  return nlohmann::json(inputs).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<SqlValue> insert_params(const SubmissionRecord& r) {
  const IdempotencyTag* tag = r.idempotency ? &*r.idempotency : nullptr;
  return {r.id,
          r.time,
          r.problem,
          r.problem_sha256,
          sql_text(r.student),
          sql_text(r.key),
          r.body,
          std::int64_t{r.passed ? 1 : 0},
          r.score,
          r.tests_total,
          r.tests_passed,
          r.tests_failed,
          failing_inputs_json(r.failing_inputs),
          r.answer,
          sql_text(r.regrade_of),
          tag != nullptr ? SqlValue(tag->scope) : SqlValue(),
          tag != nullptr ? SqlValue(tag->key) : SqlValue(),
          tag != nullptr ? SqlValue(tag->body_sha256) : SqlValue(),
          sql_text(r.lms_context),
          sql_text(r.lms_resource_link)};
}

// "<time_ms>_<id>" of the last record on a page: the next page starts after it.
std::string make_cursor(const SubmissionRecord& last) {
  return std::to_string(last.time) + "_" + last.id;
}

bool parse_cursor(std::string_view cursor, TimeMs& time, std::string& id) {
  const std::size_t sep = cursor.find('_');
  if (sep == std::string_view::npos || sep == 0) return false;
  const auto [end, ec] = std::from_chars(cursor.data(), cursor.data() + sep, time);
  if (ec != std::errc() || end != cursor.data() + sep || time < 0) return false;
  id = std::string(cursor.substr(sep + 1));
  return !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

// Rows of ON CONFLICT are written in one order by every server, so that two batches that
// share idempotency keys wait for each other instead of deadlocking.
std::vector<std::size_t> write_order(const std::vector<PendingCommit>& batch) {
  std::vector<std::size_t> order(batch.size());
  std::iota(order.begin(), order.end(), 0);
  const auto tag = [&](std::size_t i) {
    const auto& t = batch[i].record.idempotency;
    return t ? std::pair<std::string_view, std::string_view>(t->scope, t->key)
             : std::pair<std::string_view, std::string_view>();
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return tag(a) < tag(b); });
  return order;
}

// INSERT INTO submissions (...) VALUES ($1, ..., $20), ... for `rows` records.
std::string insert_values(std::size_t rows) {
  std::string sql(kInsertHead);
  for (std::size_t n = 0; n < rows; ++n) {
    sql += n == 0 ? " (" : ", (";
    for (std::size_t c = 0; c < kInsertColumns; ++c) {
      if (c > 0) sql += ", ";
      sql += "$" + std::to_string(n * kInsertColumns + c + 1);
    }
    sql += ")";
  }
  return sql;
}

// PostgreSQL: every record in one multi-row INSERT, one round trip to the server instead of
// one a record. The ids of the records written, when `keyed` (RETURNING).
Result<std::set<std::string>> insert_together(SqlConnection& db,
                                              const std::vector<PendingCommit>& batch,
                                              const std::vector<std::size_t>& order, bool keyed) {
  std::string sql = insert_values(order.size());
  if (keyed) sql += kInsertTail;
  std::vector<SqlValue> params;
  params.reserve(order.size() * kInsertColumns);
  for (const std::size_t i : order) {
    for (SqlValue& value : insert_params(batch[i].record)) params.push_back(std::move(value));
  }
  auto inserted = db.query(sql, params);
  if (!inserted) return inserted.error();
  std::set<std::string> written;
  for (const SqlRow& row : *inserted) written.insert(row[0].value_or(""));
  return written;
}

// SQLite: one prepared single-row INSERT run once a record; the ids of the records written,
// when `keyed`. In process there is no round trip to save, and under load a statement of N
// rows cost the committer more a row as N grew (its program and its N x 20 parameters): about
// twice as much at 49-64 rows as at 25-40, and the largest batches are those whose gradings
// all wait (docs/benchmarks-store.md, stop 36).
Result<std::set<std::string>> insert_each(SqlConnection& db,
                                          const std::vector<PendingCommit>& batch,
                                          const std::vector<std::size_t>& order, bool keyed) {
  static const std::string plain = insert_values(1);
  static const std::string tagged = plain + std::string(kInsertTail);
  std::set<std::string> written;
  for (const std::size_t i : order) {
    const SubmissionRecord& record = batch[i].record;
    auto inserted = db.query(record.idempotency ? tagged : plain, insert_params(record));
    if (!inserted) return inserted.error();
    if (keyed && (!record.idempotency || !inserted->empty())) written.insert(record.id);
  }
  return written;
}

}  // namespace

Result<std::unique_ptr<SubmissionStore>> SqlStore::open(Dialect dialect,
                                                        ConnectionPool::Opener opener) {
  Result<std::unique_ptr<SqlConnection>> first = opener();
  if (!first) return first.error();
  if (auto migrated = migrate(**first, dialect); !migrated) return migrated.error();
  return std::unique_ptr<SubmissionStore>(
      new SqlStore(dialect, std::move(opener), std::move(first).value()));
}

SqlStore::SqlStore(Dialect dialect, ConnectionPool::Opener opener,
                   std::unique_ptr<SqlConnection> committer_connection)
    : dialect_(dialect), opener_(opener), pool_(std::move(opener), limits::kStorePoolConnections) {
  // SQLite has one writer at a time: a second lane would only wait for the first's lock (and
  // PostgreSQL one WAL flush at a time: limits.h).
  const std::size_t lanes = dialect == Dialect::kSqlite ? 1 : limits::kPostgresCommitterLanes;
  if (dialect == Dialect::kSqlite) checkpointer_ = std::make_unique<WalCheckpointer>(opener_);
  committer_connections_.resize(lanes);
  committer_connections_[0] = std::move(committer_connection);
  (void)ready_committer_connection(0);  // opened already: cannot fail
  committer_ = std::make_unique<GroupCommitter>(
      [this](std::size_t lane, std::vector<PendingCommit>& batch) {
        return write_batch(lane, batch);
      },
      limits::kMaxCommitBatch, lanes);
}

SqlStore::~SqlStore() { close(); }

void SqlStore::close() { committer_->close(); }

void SqlStore::commit(SubmissionRecord record, std::optional<PassbackRequest> passback,
                      CommitCallback done) {
  committer_->submit({std::move(record), std::move(passback), std::move(done)});
}

Result<bool> SqlStore::ready_committer_connection(std::size_t lane) {
  std::unique_ptr<SqlConnection>& connection = committer_connections_[lane];
  if (connection == nullptr || connection->broken()) {
    connection.reset();
    Result<std::unique_ptr<SqlConnection>> opened = opener_();
    if (!opened) return opened.error();
    connection = std::move(opened).value();
  }
  auto* sqlite = dynamic_cast<SqliteConnection*>(connection.get());
  if (sqlite != nullptr && checkpointer_ != nullptr && !sqlite->checkpoints_elsewhere()) {
    sqlite->checkpoint_elsewhere(
        [checkpointer = checkpointer_.get()](int pages) { checkpointer->wal_grew(pages); });
  }
  return true;
}

Result<std::vector<Result<CommitOutcome>>> SqlStore::write_batch(
    std::size_t lane, std::vector<PendingCommit>& batch) {
  if (auto ready = ready_committer_connection(lane); !ready) return ready.error();
  std::unique_ptr<SqlConnection>& connection = committer_connections_[lane];
  Result<std::vector<Result<CommitOutcome>>> written = write_batch_once(*connection, batch);
  // PostgreSQL may still pick this batch as a deadlock's victim (another lane's or another
  // server's batch took the same idempotency keys): once more, now that the other has
  // committed.
  const auto* pg = dynamic_cast<const PostgresConnection*>(connection.get());
  if (!written && pg != nullptr &&
      (pg->last_sqlstate() == "40P01" || pg->last_sqlstate() == "40001")) {
    written = write_batch_once(*connection, batch);
  }
  return written;
}

Result<std::vector<Result<CommitOutcome>>> SqlStore::write_batch_once(
    SqlConnection& db, std::vector<PendingCommit>& batch) {
  // A PostgreSQL batch without passbacks is one INSERT, and a statement outside BEGIN is a
  // transaction of its own: one round trip to the server instead of three (BEGIN, INSERT,
  // COMMIT), each of which waits for the server's process to get a core. With idempotency
  // keys, the records that lost their key to an earlier one read it afterwards; if that read
  // fails, only those records get the error (their own gradings were not kept, and the
  // client's retry with the same key gets the earlier answer), not the records already
  // committed beside them.
  const bool keyed = std::any_of(batch.begin(), batch.end(), [](const PendingCommit& c) {
    return c.record.idempotency.has_value();
  });
  const bool one_statement = dialect_ == Dialect::kPostgres &&
                             std::none_of(batch.begin(), batch.end(), [](const PendingCommit& c) {
                               return c.passback.has_value();
                             });
  if (!one_statement) {
    if (auto r = db.exec_script(dialect_ == Dialect::kSqlite ? "BEGIN IMMEDIATE" : "BEGIN"); !r) {
      return r.error();
    }
  }
  std::vector<CommitOutcome> outcomes(batch.size());
  std::vector<std::optional<Error>> unread(batch.size());
  const auto fail = [&](const Error& error) -> Result<std::vector<Result<CommitOutcome>>> {
    if (!one_statement) (void)db.exec_script("ROLLBACK");
    return error;
  };
  // Pass 1: the records, in the write order; with idempotency keys, RETURNING names those
  // written (without, nothing can be left out, and naming every record back would only cost
  // the thread every grading waits for).
  const std::vector<std::size_t> order = write_order(batch);
  auto inserted = dialect_ == Dialect::kSqlite ? insert_each(db, batch, order, keyed)
                                               : insert_together(db, batch, order, keyed);
  if (!inserted) return fail(inserted.error());
  const std::set<std::string>& written = *inserted;

  // Pass 2: the records whose idempotency tag was taken get the record that holds it; the
  // others their passback, if any, in this same transaction.
  for (const std::size_t i : order) {
    const SubmissionRecord& record = batch[i].record;
    if (keyed && written.count(record.id) == 0) {
      std::optional<Error> error;
      if (!record.idempotency) {
        error = store_error("a record was not written");
      } else if (auto kept = db.query("SELECT " + std::string(kColumns) +
                                          " FROM submissions WHERE idem_scope = $1 AND "
                                          "idem_key = $2",
                                      {record.idempotency->scope, record.idempotency->key});
                 !kept) {
        error = kept.error();
      } else if (kept->empty()) {
        error = store_error("an idempotency key's record vanished");
      } else {
        outcomes[i] = {false, rows::record(kept->front())};
      }
      if (error && !one_statement) return fail(*error);
      unread[i] = std::move(error);
      continue;
    }
    if (const auto& passback = batch[i].passback) {
      auto queued = db.query(kInsertPassback, {new_submission_id(record.time), record.id,
                                               passback->issuer, passback->client_id,
                                               passback->lineitem, passback->payload, record.time});
      if (!queued) return fail(queued.error());
    }
    outcomes[i].inserted = true;
  }
  if (!one_statement) {
    if (auto r = db.exec_script("COMMIT"); !r) return fail(r.error());
  }
  // Only now, once nothing can fail and have the batch written again: the records move into
  // their outcomes instead of being copied, on the thread every grading waits for.
  std::vector<Result<CommitOutcome>> results;
  results.reserve(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (unread[i]) {
      results.emplace_back(std::move(*unread[i]));
      continue;
    }
    if (outcomes[i].inserted) outcomes[i].kept = std::move(batch[i].record);
    results.emplace_back(std::move(outcomes[i]));
  }
  return results;
}

Result<std::vector<SqlRow>> SqlStore::run(std::string_view sql,
                                          const std::vector<SqlValue>& params) {
  Result<ConnectionPool::Lease> lease = pool_.borrow();
  if (!lease) return lease.error();
  return (*lease)->query(sql, params);
}

Result<std::optional<SubmissionRecord>> SqlStore::find_one(std::string_view where,
                                                           const std::vector<SqlValue>& params) {
  auto found = run(
      "SELECT " + std::string(kColumns) + " FROM submissions WHERE " + std::string(where), params);
  if (!found) return found.error();
  if (found->empty()) return std::optional<SubmissionRecord>();
  return std::optional<SubmissionRecord>(rows::record(found->front()));
}

Result<std::optional<SubmissionRecord>> SqlStore::find_idempotent(std::string_view scope,
                                                                  std::string_view key) {
  return find_one("idem_scope = $1 AND idem_key = $2", {std::string(scope), std::string(key)});
}

Result<std::optional<SubmissionRecord>> SqlStore::get(std::string_view id) {
  return find_one("id = $1", {std::string(id)});
}

Result<SubmissionPage> SqlStore::list(const SubmissionQuery& query) {
  std::string sql = "SELECT " + std::string(kListColumns) + " FROM submissions WHERE 1 = 1";
  std::vector<SqlValue> params;
  const auto add = [&](std::string_view condition, SqlValue value) {
    params.push_back(std::move(value));
    std::string text(condition);
    text.replace(text.find('?'), 1, "$" + std::to_string(params.size()));
    sql += " AND ";
    sql += text;
  };
  if (query.problem) add("problem = ?", *query.problem);
  if (query.student) add("student = ?", *query.student);
  if (query.passed) add("passed = ?", std::int64_t{*query.passed ? 1 : 0});
  if (query.since) add("time_ms >= ?", *query.since);
  if (query.until) add("time_ms < ?", *query.until);
  if (!query.cursor.empty()) {
    TimeMs time = 0;
    std::string id;
    if (!parse_cursor(query.cursor, time, id)) {
      return Error{ErrorCode::kBadRequest, "cursor is not one that this server gave as next_cursor",
                   "cursor"};
    }
    params.push_back(time);
    const std::string t = "$" + std::to_string(params.size());
    params.push_back(id);
    const std::string i = "$" + std::to_string(params.size());
    sql += " AND (time_ms < " + t + " OR (time_ms = " + t + " AND id < " + i + "))";
  }
  const int limit = std::clamp(query.limit, 1, limits::kMaxListLimit);
  // One more than asked: whether there is a next page.
  sql += " ORDER BY time_ms DESC, id DESC LIMIT " + std::to_string(limit + 1);
  auto found = run(sql, params);
  if (!found) return found.error();
  SubmissionPage page;
  for (const SqlRow& row : *found) page.records.push_back(rows::record(row));
  if (page.records.size() > static_cast<std::size_t>(limit)) {
    page.records.resize(static_cast<std::size_t>(limit));
    page.next_cursor = make_cursor(page.records.back());
  }
  return page;
}

Result<WindowUse> SqlStore::gradings_since(const RateScope& scope, TimeMs since, std::int64_t cap) {
  cap = std::max<std::int64_t>(cap, 1);
  std::string where = "regrade_of IS NULL AND time_ms >= $1 AND ";
  std::vector<SqlValue> params = {since};
  if (scope.kind == RateScope::Kind::kKey) {
    where += "key_name = $2";
    params.push_back(scope.key);
  } else {
    where += "problem = $2 AND student = $3";
    params.push_back(scope.problem);
    params.push_back(scope.student);
  }
  params.push_back(cap);
  const std::string cap_param = "$" + std::to_string(params.size());
  // The newest `cap` in the window, oldest of them last: the count, and when the window will
  // have room again. `regrade_of IS NULL` stays written as the key index's own condition
  // (migration 3), so that both databases count from that index alone.
  auto found = run("SELECT COUNT(*), MIN(time_ms) FROM (SELECT time_ms FROM submissions WHERE " +
                       where + " ORDER BY time_ms DESC LIMIT " + cap_param + ") AS newest",
                   params);
  if (!found) return found.error();
  WindowUse use;
  if (!found->empty()) {
    use.count = rows::integer(found->front()[0]);
    if (use.count >= cap) use.cap_th_newest = rows::integer(found->front()[1]);
  }
  return use;
}

Result<std::optional<double>> SqlStore::best_score(std::string_view problem,
                                                   std::string_view student,
                                                   std::string_view resource_link) {
  auto found =
      run("SELECT MAX(score) FROM submissions WHERE problem = $1 AND student = $2 AND "
          "lms_resource_link = $3 AND regrade_of IS NULL",
          {std::string(problem), std::string(student), std::string(resource_link)});
  if (!found) return found.error();
  if (found->empty() || !found->front()[0]) return std::optional<double>();
  return std::optional<double>(rows::real(found->front()[0]));
}

// The latest record of each student: no later one of the same student on the problem.
Result<std::vector<SubmissionRecord>> SqlStore::latest_per_student(std::string_view problem) {
  auto found = run("SELECT " + std::string(kColumns) +
                       " FROM submissions s WHERE s.problem = $1 AND s.student IS NOT NULL AND "
                       "NOT EXISTS (SELECT 1 FROM submissions t WHERE t.problem = s.problem AND "
                       "t.student = s.student AND (t.time_ms > s.time_ms OR (t.time_ms = "
                       "s.time_ms AND t.id > s.id))) ORDER BY s.student",
                   {std::string(problem)});
  if (!found) return found.error();
  std::vector<SubmissionRecord> latest;
  for (const SqlRow& row : *found) latest.push_back(rows::record(row));
  std::sort(latest.begin(), latest.end(), [](const SubmissionRecord& a, const SubmissionRecord& b) {
    return a.student < b.student;
  });
  return latest;
}

Result<StatsInputs> SqlStore::stats_inputs(std::string_view problem) {
  StatsInputs inputs;
  auto count = run("SELECT COUNT(*) FROM submissions WHERE problem = $1 AND regrade_of IS NULL",
                   {std::string(problem)});
  if (!count) return count.error();
  inputs.submissions = count->empty() ? 0 : rows::integer(count->front()[0]);
  auto first = run(
      "SELECT s.student, s.passed FROM submissions s WHERE s.problem = $1 AND s.student IS NOT "
      "NULL AND s.regrade_of IS NULL AND NOT EXISTS (SELECT 1 FROM submissions t WHERE "
      "t.problem = s.problem AND t.student = s.student AND t.regrade_of IS NULL AND (t.time_ms < "
      "s.time_ms OR (t.time_ms = s.time_ms AND t.id < s.id))) ORDER BY s.student",
      {std::string(problem)});
  if (!first) return first.error();
  auto latest = latest_per_student(problem);
  if (!latest) return latest.error();
  // Sorted here, not by the database: its collation need not be byte order.
  std::map<std::string, bool> first_passed;
  for (const SqlRow& row : *first) first_passed[row[0].value_or("")] = rows::integer(row[1]) != 0;
  for (SubmissionRecord& record : latest.value()) {
    StudentSummary summary;
    summary.student = record.student.value_or("");
    summary.first_passed = first_passed[summary.student];
    summary.latest = std::move(record);
    inputs.students.push_back(std::move(summary));
  }
  std::sort(inputs.students.begin(), inputs.students.end(),
            [](const StudentSummary& a, const StudentSummary& b) { return a.student < b.student; });
  return inputs;
}

}  // namespace headgrader::store

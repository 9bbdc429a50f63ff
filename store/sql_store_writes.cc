// SqlStore's write path: the group committer's batches of records (and their passbacks)
// written as SQL, one multi-row INSERT on PostgreSQL, one prepared INSERT a record on SQLite.
#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "postgres/postgres_connection.h"
#include "record_columns.h"
#include "sql_rows.h"
#include "sql_store.h"
#include "sqlite/sqlite_connection.h"

namespace headgrader::store {
namespace {

constexpr std::string_view kInsertTail =
    " ON CONFLICT (idem_scope, idem_key) DO NOTHING RETURNING id";
constexpr std::string_view kInsertPassback =
    "INSERT INTO passback (id, submission_id, issuer, client_id, lineitem, payload, status, "
    "attempts, last_status, last_error, next_attempt_ms, created_ms) VALUES ($1, $2, $3, $4, $5, "
    "$6, 'pending', 0, NULL, '', $7, $7)";

// "passback": "best" (PassbackRequest::best_payload): the next timestamp for a student and line
// item, later than every one queued before it, and the best of the student's gradings.
constexpr std::string_view kNextPassbackTimestamp =
    "INSERT INTO passback_latest (lineitem, student, timestamp_ms) VALUES ($1, $2, $3) "
    "ON CONFLICT (lineitem, student) DO UPDATE SET timestamp_ms = CASE WHEN "
    "passback_latest.timestamp_ms < excluded.timestamp_ms THEN excluded.timestamp_ms ELSE "
    "passback_latest.timestamp_ms + 1 END RETURNING timestamp_ms";
constexpr std::string_view kBestScore =
    "SELECT MAX(score) FROM submissions WHERE problem = $1 AND student = $2 AND "
    "COALESCE(lms_resource_link, '') = $3 AND regrade_of IS NULL";

// The body of a "best" passback, decided inside the record's transaction. The timestamp comes
// first: its row stays locked until the transaction ends, so on PostgreSQL a second commit
// for the same student and line item (another lane, another server) waits there until this
// one is committed, and its best, read after, then counts this record. SQLite's BEGIN
// IMMEDIATE makes a transaction the only writer anyway.
Result<std::string> best_payload_on(SqlConnection& db, const SubmissionRecord& record,
                                    const PassbackRequest& passback) {
  const std::string student = record.student.value_or("");
  auto stamped = db.query(kNextPassbackTimestamp, {passback.lineitem, student, record.time});
  if (!stamped) return stamped.error();
  if (stamped->empty() || !stamped->front()[0]) return store_error("no passback timestamp came");
  const TimeMs timestamp = rows::integer(stamped->front()[0]);
  auto best = db.query(kBestScore,
                       {record.problem, student, record.lms_resource_link.value_or(std::string())});
  if (!best) return best.error();
  double score = record.score;
  if (!best->empty() && best->front()[0]) score = std::max(score, rows::real(best->front()[0]));
  return passback.best_payload(score, timestamp);
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
  std::string sql = "INSERT INTO submissions " + columns::insert_list() + " VALUES";
  for (std::size_t n = 0; n < rows; ++n) {
    sql += n == 0 ? " (" : ", (";
    for (std::size_t c = 0; c < columns::kRecordColumnCount; ++c) {
      if (c > 0) sql += ", ";
      sql += "$" + std::to_string(n * columns::kRecordColumnCount + c + 1);
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
  params.reserve(order.size() * columns::kRecordColumnCount);
  for (const std::size_t i : order) {
    for (SqlValue& value : columns::binds(batch[i].record)) params.push_back(std::move(value));
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
// all wait (docs/benchmarks-store.md, 'A batch a record at a time').
Result<std::set<std::string>> insert_each(SqlConnection& db,
                                          const std::vector<PendingCommit>& batch,
                                          const std::vector<std::size_t>& order, bool keyed) {
  static const std::string plain = insert_values(1);
  static const std::string tagged = plain + std::string(kInsertTail);
  std::set<std::string> written;
  for (const std::size_t i : order) {
    const SubmissionRecord& record = batch[i].record;
    auto inserted = db.query(record.idempotency ? tagged : plain, columns::binds(record));
    if (!inserted) return inserted.error();
    if (keyed && (!record.idempotency || !inserted->empty())) written.insert(record.id);
  }
  return written;
}

}  // namespace

void SqlStore::commit(SubmissionRecord record, std::optional<PassbackRequest> passback,
                      CommitCallback done) {
  committer_->submit({std::move(record), std::move(passback), std::move(done), std::nullopt});
}

void SqlStore::commit_limited(SubmissionRecord record, std::optional<PassbackRequest> passback,
                              std::optional<CommitLimit> limit, CommitCallback done) {
  if (!record.student) limit.reset();
  committer_->submit({std::move(record), std::move(passback), std::move(done), limit});
}

Result<std::vector<std::optional<TimeMs>>> SqlStore::limit_refusals(
    SqlConnection& db, const std::vector<PendingCommit>& batch,
    const std::vector<std::size_t>& order) {
  using Pair = std::pair<std::string, std::string>;  // (problem, student)
  const auto pair_of = [&](std::size_t i) {
    return Pair(batch[i].record.problem, batch[i].record.student.value_or(""));
  };
  std::vector<std::optional<TimeMs>> refused(batch.size());
  // The times of the records of this batch already let through, by (problem, student): they
  // are not written yet, so the count below cannot see them.
  std::map<Pair, std::vector<TimeMs>> let_through;
  for (const std::size_t i : order) {
    if (batch[i].limit) let_through.emplace(pair_of(i), std::vector<TimeMs>());
  }
  if (let_through.empty()) return refused;
  if (dialect_ == Dialect::kPostgres) {
    // Several servers (and lanes) write to one PostgreSQL: each (student, problem) of the
    // batch is locked until this transaction ends, in one order (the map's) so that two
    // batches wait for each other instead of deadlocking; SQLite's BEGIN IMMEDIATE already
    // makes this the only writer.
    for (const auto& [pair, unused] : let_through) {
      auto locked = db.query("SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))",
                             {pair.first, pair.second});
      if (!locked) return locked.error();
    }
  }
  for (const std::size_t i : order) {
    const PendingCommit& commit = batch[i];
    if (!commit.limit) continue;
    const SubmissionRecord& record = commit.record;
    // A replay of a key already taken is no new grading: the write below answers it with the
    // earlier record.
    if (record.idempotency) {
      auto earlier = find_idempotent_on(db, record.idempotency->scope, record.idempotency->key);
      if (!earlier) return earlier.error();
      if (earlier->has_value()) continue;
    }
    const CommitLimit& limit = *commit.limit;
    const std::int64_t cap = std::max<std::int64_t>(limit.count, 1);
    const TimeMs since = record.time - limit.period + 1;  // the window ends at the record
    auto newest = db.query(
        "SELECT time_ms FROM submissions WHERE regrade_of IS NULL AND time_ms >= $1 AND "
        "problem = $2 AND student = $3 ORDER BY time_ms DESC LIMIT $4",
        {since, record.problem, *record.student, cap});
    if (!newest) return newest.error();
    std::vector<TimeMs>& mine = let_through[pair_of(i)];
    std::vector<TimeMs> times;
    for (const SqlRow& row : *newest) times.push_back(rows::integer(row[0]));
    for (const TimeMs time : mine) {
      if (time >= since) times.push_back(time);
    }
    if (static_cast<std::int64_t>(times.size()) < cap) {
      mine.push_back(record.time);
      continue;
    }
    // The window has room again once its cap-th newest grading leaves it.
    std::sort(times.begin(), times.end(), std::greater<>());
    refused[i] = times[static_cast<std::size_t>(cap - 1)] + limit.period;
  }
  return refused;
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
                               return c.passback.has_value() || c.limit.has_value();
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
  std::vector<std::size_t> order = write_order(batch);
  // The attempt limit, counted again now that nothing can be written beside this batch: the
  // records it refuses are left out of both passes.
  auto refusals = limit_refusals(db, batch, order);
  if (!refusals) return fail(refusals.error());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if ((*refusals)[i]) outcomes[i].limited_until = (*refusals)[i];
  }
  std::erase_if(order, [&](std::size_t i) { return (*refusals)[i].has_value(); });
  if (order.empty()) {
    if (auto r = db.exec_script("COMMIT"); !r) return fail(r.error());
    std::vector<Result<CommitOutcome>> results;
    for (CommitOutcome& outcome : outcomes) results.emplace_back(std::move(outcome));
    return results;
  }
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
      } else if (auto kept =
                     find_idempotent_on(db, record.idempotency->scope, record.idempotency->key);
                 !kept) {
        error = kept.error();
      } else if (!kept->has_value()) {
        error = store_error("an idempotency key's record vanished");
      } else {
        outcomes[i] = {false, std::move(**kept), std::nullopt};
      }
      if (error && !one_statement) return fail(*error);
      unread[i] = std::move(error);
      continue;
    }
    if (const auto& passback = batch[i].passback) {
      std::string payload = passback->payload;
      if (passback->best_payload) {
        auto decided = best_payload_on(db, record, *passback);
        if (!decided) return fail(decided.error());
        payload = std::move(*decided);
      }
      auto queued = db.query(kInsertPassback,
                             {new_submission_id(record.time), record.id, passback->issuer,
                              passback->client_id, passback->lineitem, payload, record.time});
      if (!queued) return fail(queued.error());
    }
    outcomes[i].inserted = true;
  }
  if (!one_statement) {
    if (auto r = db.exec_script("COMMIT"); !r) return fail(r.error());
  }
  // Committed into a file that is no longer the store (deleted while serving) is not kept:
  // every grading of the batch is told so instead of 200.
  if (auto same = db.still_the_store(); !same) return same.error();
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

}  // namespace headgrader::store

#include "sql_store.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

#include "common/limits.h"
#include "migrations.h"
#include "record_columns.h"
#include "sql_rows.h"

namespace headgrader::store {
namespace {

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

CommitCounters SqlStore::counters() const {
  CommitCounters counters = committer_->counters();
  counters.errors += errors_.load(std::memory_order_relaxed);
  return counters;
}

template <class T>
Result<T> SqlStore::counted(Result<T> result) const {
  if (!result && result.error().code == ErrorCode::kStoreUnavailable) {
    errors_.fetch_add(1, std::memory_order_relaxed);
  }
  return result;
}

Result<bool> SqlStore::ready() {
  Result<ConnectionPool::Lease> lease = pool_.borrow();
  if (!lease) return counted<bool>(lease.error());
  if (auto answered = (*lease)->query("SELECT 1", {}); !answered) {
    return counted<bool>(answered.error());
  }
  return counted((*lease)->takes_writes());
}

Result<std::vector<SqlRow>> SqlStore::run(std::string_view sql,
                                          const std::vector<SqlValue>& params) {
  Result<ConnectionPool::Lease> lease = pool_.borrow();
  if (!lease) return counted<std::vector<SqlRow>>(lease.error());
  return counted((*lease)->query(sql, params));
}

namespace {

// The first record of `where` read on `db`, if any.
Result<std::optional<SubmissionRecord>> find_one_on(SqlConnection& db, std::string_view where,
                                                    const std::vector<SqlValue>& params) {
  auto found = db.query(
      "SELECT " + columns::select_list() + " FROM submissions WHERE " + std::string(where), params);
  if (!found) return found.error();
  if (found->empty()) return std::optional<SubmissionRecord>();
  return std::optional<SubmissionRecord>(columns::record(found->front()));
}

}  // namespace

Result<std::optional<SubmissionRecord>> SqlStore::find_one(std::string_view where,
                                                           const std::vector<SqlValue>& params) {
  Result<ConnectionPool::Lease> lease = pool_.borrow();
  if (!lease) return counted<std::optional<SubmissionRecord>>(lease.error());
  return counted(find_one_on(**lease, where, params));
}

Result<std::optional<SubmissionRecord>> SqlStore::find_idempotent_on(SqlConnection& db,
                                                                     std::string_view scope,
                                                                     std::string_view key) {
  return find_one_on(db, "idem_scope = $1 AND idem_key = $2",
                     {std::string(scope), std::string(key)});
}

Result<std::optional<SubmissionRecord>> SqlStore::find_idempotent(std::string_view scope,
                                                                  std::string_view key) {
  Result<ConnectionPool::Lease> lease = pool_.borrow();
  if (!lease) return counted<std::optional<SubmissionRecord>>(lease.error());
  return counted(find_idempotent_on(**lease, scope, key));
}

Result<std::optional<SubmissionRecord>> SqlStore::get(std::string_view id) {
  return find_one("id = $1", {std::string(id)});
}

Result<SubmissionPage> SqlStore::list(const SubmissionQuery& query) {
  std::string sql =
      "SELECT " + (query.with_bodies ? columns::body_select_list() : columns::list_select_list()) +
      " FROM submissions WHERE 1 = 1";
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
  for (const SqlRow& row : *found) page.records.push_back(columns::record(row));
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

// The latest record of each student: no later one of the same student on the problem. The
// subqueries below name `t.student IS NOT NULL`, the student index's own condition (migration
// 4), so that a plan which looks each student up in that index is one the planner can prove.
Result<std::vector<SubmissionRecord>> SqlStore::latest_per_student(std::string_view problem) {
  auto found = run("SELECT " + columns::select_list() +
                       " FROM submissions s WHERE s.problem = $1 AND s.student IS NOT NULL AND "
                       "NOT EXISTS (SELECT 1 FROM submissions t WHERE t.problem = s.problem AND "
                       "t.student IS NOT NULL AND t.student = s.student AND (t.time_ms > "
                       "s.time_ms OR (t.time_ms = s.time_ms AND t.id > s.id))) ORDER BY s.student",
                   {std::string(problem)});
  if (!found) return found.error();
  std::vector<SubmissionRecord> latest;
  for (const SqlRow& row : *found) latest.push_back(columns::record(row));
  std::sort(latest.begin(), latest.end(), [](const SubmissionRecord& a, const SubmissionRecord& b) {
    return a.student < b.student;
  });
  return latest;
}

// Two passes the database makes at once: each (student, problem)'s counts by GROUP BY, joined
// to its latest record found as latest_per_student finds it. Summaries are small (no body, no
// answer), so every one is read: a class of 10 000 students on 10 problems is 100 000 of them.
Result<std::vector<StudentProblemSummary>> SqlStore::student_summaries(
    const std::optional<std::string>& problem) {
  const std::string only = problem ? " AND problem = $1" : "";
  std::vector<SqlValue> params;
  if (problem) params.push_back(*problem);
  auto found = run(
      "SELECT l.student, l.problem, a.attempts, a.best, a.first_passed, l.time_ms, l.score, "
      "l.passed, l.mistakes FROM submissions l JOIN (SELECT student, problem, SUM(CASE WHEN "
      "regrade_of IS NULL THEN 1 ELSE 0 END) AS attempts, MAX(score) AS best, MIN(CASE WHEN "
      "passed = 1 THEN time_ms END) AS first_passed FROM submissions WHERE student IS NOT NULL" +
          only +
          " GROUP BY student, problem) a ON a.student = l.student AND a.problem = l.problem "
          "WHERE l.student IS NOT NULL AND NOT EXISTS (SELECT 1 FROM submissions t WHERE "
          "t.problem = l.problem AND t.student IS NOT NULL AND t.student = l.student AND "
          "(t.time_ms > l.time_ms OR (t.time_ms = l.time_ms AND t.id > l.id)))",
      params);
  if (!found) return found.error();
  std::vector<StudentProblemSummary> summaries;
  summaries.reserve(found->size());
  for (const SqlRow& row : *found) {
    StudentProblemSummary s;
    s.student = row[0].value_or("");
    s.problem = row[1].value_or("");
    s.attempts = rows::integer(row[2]);
    s.best_score = rows::real(row[3]);
    if (row[4]) s.first_passed = rows::integer(row[4]);
    s.latest_time = rows::integer(row[5]);
    s.latest_score = rows::real(row[6]);
    s.latest_passed = rows::integer(row[7]) != 0;
    s.latest_mistakes = columns::mistakes(row[8]);
    summaries.push_back(std::move(s));
  }
  // Sorted here, not by the database: its collation need not be byte order.
  std::sort(summaries.begin(), summaries.end(),
            [](const StudentProblemSummary& a, const StudentProblemSummary& b) {
              return std::tie(a.student, a.problem) < std::tie(b.student, b.problem);
            });
  return summaries;
}

Result<StatsInputs> SqlStore::stats_inputs(std::string_view problem) {
  StatsInputs inputs;
  auto count = run("SELECT COUNT(*) FROM submissions WHERE problem = $1 AND regrade_of IS NULL",
                   {std::string(problem)});
  if (!count) return count.error();
  inputs.submissions = count->empty() ? 0 : rows::integer(count->front()[0]);
  auto first =
      run("SELECT s.student, s.passed FROM submissions s WHERE s.problem = $1 AND s.student IS NOT "
          "NULL AND s.regrade_of IS NULL AND NOT EXISTS (SELECT 1 FROM submissions t WHERE "
          "t.problem = s.problem AND t.student IS NOT NULL AND t.student = s.student AND "
          "t.regrade_of IS NULL AND (t.time_ms < s.time_ms OR (t.time_ms = s.time_ms AND "
          "t.id < s.id))) ORDER BY s.student",
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

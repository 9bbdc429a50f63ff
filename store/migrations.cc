#include "migrations.h"

#include <string>

namespace headgrader::store {
namespace {

// pg_advisory_lock's key: any constant that no other program on the database uses ("hgstore").
constexpr std::string_view kMigrationLock = "7453470281734513765";

constexpr std::string_view kMigration1 = R"sql(
CREATE TABLE submissions (
  id TEXT PRIMARY KEY,
  time_ms BIGINT NOT NULL,
  problem TEXT NOT NULL,
  problem_sha256 TEXT NOT NULL,
  student TEXT,
  key_name TEXT,
  body TEXT NOT NULL,
  passed INTEGER NOT NULL,
  score DOUBLE PRECISION NOT NULL,
  tests_total BIGINT NOT NULL,
  tests_passed BIGINT NOT NULL,
  tests_failed BIGINT NOT NULL,
  failing_inputs TEXT NOT NULL,
  answer TEXT NOT NULL,
  regrade_of TEXT,
  idem_scope TEXT,
  idem_key TEXT,
  idem_body_sha256 TEXT,
  lms_context TEXT,
  lms_resource_link TEXT,
  UNIQUE (idem_scope, idem_key)
);
CREATE INDEX submissions_by_time ON submissions (time_ms, id);
CREATE INDEX submissions_by_problem ON submissions (problem, time_ms, id);
CREATE INDEX submissions_by_student ON submissions (problem, student, time_ms, id);
CREATE INDEX submissions_by_key ON submissions (key_name, time_ms);
CREATE TABLE passback (
  id TEXT PRIMARY KEY,
  submission_id TEXT NOT NULL UNIQUE REFERENCES submissions (id),
  issuer TEXT NOT NULL,
  client_id TEXT NOT NULL,
  lineitem TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  last_status INTEGER,
  last_error TEXT NOT NULL,
  next_attempt_ms BIGINT NOT NULL,
  created_ms BIGINT NOT NULL
);
CREATE INDEX passback_due ON passback (status, next_attempt_ms);
CREATE TABLE single_use (
  value TEXT PRIMARY KEY,
  expires_ms BIGINT NOT NULL
);
CREATE INDEX single_use_expiry ON single_use (expires_ms);
CREATE TABLE student_tokens (
  token_sha256 TEXT PRIMARY KEY,
  student TEXT NOT NULL,
  problem TEXT NOT NULL,
  issuer TEXT NOT NULL,
  client_id TEXT NOT NULL,
  context TEXT,
  resource_link TEXT,
  lineitem TEXT,
  expires_ms BIGINT NOT NULL
);
)sql";

// The rest of a launch beside its student token (the deployment, the student's name, a deep
// link's return URL), so that any server of a shared database can use the token.
constexpr std::string_view kMigration2 = R"sql(
ALTER TABLE student_tokens ADD COLUMN details TEXT NOT NULL DEFAULT '';
)sql";

// An lms key's attempt window (API.md §8: at most 100 times the limit in all) is counted from
// the key's newest gradings, regrades left out, on every grading the key sends while a limit
// is set: up to 100 x N of them. With regrades in the index, every one counted needed its row
// read too (3.6 ms a count of 3 000 on SQLite; on PostgreSQL, whose planner read every row of
// the window through a bitmap before its statistics caught up, 138 ms for 50 000): the index
// now holds only what the window counts, so the count reads the index alone (0.28 and 8 ms;
// docs/benchmarks-store.md, 'An lms key's attempt window'). Nothing else looks records up by key.
constexpr std::string_view kMigration3 = R"sql(
DROP INDEX submissions_by_key;
CREATE INDEX submissions_by_key ON submissions (key_name, time_ms) WHERE regrade_of IS NULL;
)sql";

// Gradings without a key (a server without --keys, a launched student's) and gradings without
// a student are never looked up by key or by student: every query that reads those two indexes
// names a key or a student, and a comparison implies IS NOT NULL to both databases' planners.
// Leaving them out spares such a grading two of the six B-trees it updated: PostgreSQL's CPU a
// grading 13 % lower and 5 % more gradings a second over 8 alternated rounds, SQLite 8 % more
// over 3 (docs/benchmarks-store.md, 'Partial indexes'). A server of schema 3 still running beside
// this one stays correct: an index changes how a statement finds its rows, not which rows it gives.
// It takes about 1 s for 200 000 records.
constexpr std::string_view kMigration4 = R"sql(
DROP INDEX submissions_by_key;
CREATE INDEX submissions_by_key ON submissions (key_name, time_ms)
  WHERE regrade_of IS NULL AND key_name IS NOT NULL;
DROP INDEX submissions_by_student;
CREATE INDEX submissions_by_student ON submissions (problem, student, time_ms, id)
  WHERE student IS NOT NULL;
)sql";

Result<int> current_version(SqlConnection& connection) {
  auto rows = connection.query("SELECT MAX(version) FROM schema_version", {});
  if (!rows) return rows.error();
  if (rows->empty() || !rows->front()[0]) return 0;
  return std::stoi(*rows->front()[0]);
}

Result<int> migrate_locked(SqlConnection& connection, Dialect dialect) {
  if (auto r = connection.exec_script(
          "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
      !r) {
    return r.error();
  }
  const int known = static_cast<int>(migrations().size());
  for (;;) {
    if (auto r = connection.exec_script(dialect == Dialect::kSqlite ? "BEGIN IMMEDIATE" : "BEGIN");
        !r) {
      return r.error();
    }
    // Read inside the transaction: another server may have migrated meanwhile.
    Result<int> version = current_version(connection);
    Result<bool> step = true;
    if (!version) {
      step = version.error();
    } else if (*version > known) {
      step = store_error("the database's schema is version " + std::to_string(*version) +
                         ", newer than this server's (" + std::to_string(known) +
                         "); run the newer server");
    } else if (*version < known) {
      step = connection.exec_script(migrations()[static_cast<std::size_t>(*version)]);
      if (step) {
        step = connection.exec_script("INSERT INTO schema_version (version) VALUES (" +
                                      std::to_string(*version + 1) + ")");
      }
    }
    if (!step) {
      (void)connection.exec_script("ROLLBACK");
      return step.error();
    }
    if (auto r = connection.exec_script("COMMIT"); !r) return r.error();
    if (*version >= known) return *version;
  }
}

// For "passback": "best" (API.md §11): the timestamp of the last score queued for each
// student and line item, so that the commit gives the next one a later timestamp than every
// score queued before it, whatever their gradings' own times (submission_store.h,
// PassbackRequest::best_payload). A platform keeps the score with the latest timestamp.
constexpr std::string_view kMigration5 = R"sql(
CREATE TABLE passback_latest (
  lineitem TEXT NOT NULL,
  student TEXT NOT NULL,
  timestamp_ms BIGINT NOT NULL,
  PRIMARY KEY (lineitem, student)
);
)sql";

// The audit of DELETE /v1/students/{student} (API.md §17): when, by which key, a SHA-256 of the
// student (never the student) and how many records went. Nothing deletes from it, retention
// included. Its ids sort by time, so the primary key pages it newest first.
constexpr std::string_view kMigrationAudit = R"sql(
CREATE TABLE audit (
  id TEXT PRIMARY KEY,
  at_ms BIGINT NOT NULL,
  key_name TEXT NOT NULL,
  student_sha256 TEXT NOT NULL,
  deleted BIGINT NOT NULL
);
)sql";

// The names of the mistakes in each grading's diagnosis (API.md §16), space-separated in the
// library's order, so that stats and the per-student CSV count them without parsing answers.
// Gradings kept before it have none: '' is what a passing or undiagnosed grading holds too.
constexpr std::string_view kMigrationMistakes = R"sql(
ALTER TABLE submissions ADD COLUMN mistakes TEXT NOT NULL DEFAULT '';
)sql";

// The variant each grading was graded on (API.md §15): its id rebuilds the relabeling, so a
// regrade grades each record on its own student's variant and integrity undoes it without the
// secret. '' is the problem as written, which every grading kept before it was.
constexpr std::string_view kMigrationVariant = R"sql(
ALTER TABLE submissions ADD COLUMN variant TEXT NOT NULL DEFAULT '';
)sql";

// The member of a pool each grading was of (API.md §15): `problem` is then the pool's id, so
// the pool's stats and regrade find every student's grading whichever member they were given.
constexpr std::string_view kMigrationMember = R"sql(
ALTER TABLE submissions ADD COLUMN member TEXT NOT NULL DEFAULT '';
)sql";

}  // namespace

const std::vector<std::string_view>& migrations() {
  static const std::vector<std::string_view> all = {
      kMigration1,     kMigration2,        kMigration3,       kMigration4,     kMigration5,
      kMigrationAudit, kMigrationMistakes, kMigrationVariant, kMigrationMember};
  return all;
}

Result<int> migrate(SqlConnection& connection, Dialect dialect) {
  if (dialect == Dialect::kSqlite) return migrate_locked(connection, dialect);
  if (auto r =
          connection.exec_script("SELECT pg_advisory_lock(" + std::string(kMigrationLock) + ")");
      !r) {
    return r.error();
  }
  Result<int> migrated = migrate_locked(connection, dialect);
  (void)connection.exec_script("SELECT pg_advisory_unlock(" + std::string(kMigrationLock) + ")");
  return migrated;
}

}  // namespace headgrader::store

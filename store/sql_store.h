// SubmissionStore over any SqlConnection (SQLite or PostgreSQL): the same statements, the same
// migrations and the same group commit for both, with the few dialect differences in place
// (SQLite's BEGIN IMMEDIATE, PostgreSQL's FOR UPDATE SKIP LOCKED, deadlock retry and more
// than one committer lane). Each committer thread has a connection of its own; everything
// else borrows from a pool.
// Thread-safety: as SubmissionStore.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "connection_pool.h"
#include "group_committer.h"
#include "sqlite/wal_checkpointer.h"
#include "submission_store.h"

namespace headgrader::store {

class SqlStore final : public SubmissionStore {
 public:
  // Connects once, migrates, then starts the committer.
  static Result<std::unique_ptr<SubmissionStore>> open(Dialect dialect,
                                                       ConnectionPool::Opener opener);
  ~SqlStore() override;

  void commit(SubmissionRecord record, std::optional<PassbackRequest> passback,
              CommitCallback done) override;
  void commit_limited(SubmissionRecord record, std::optional<PassbackRequest> passback,
                      std::optional<CommitLimit> limit, CommitCallback done) override;
  Result<std::optional<SubmissionRecord>> find_idempotent(std::string_view scope,
                                                          std::string_view key) override;
  Result<std::optional<SubmissionRecord>> get(std::string_view id) override;
  Result<SubmissionPage> list(const SubmissionQuery& query) override;
  Result<WindowUse> gradings_since(const RateScope& scope, TimeMs since, std::int64_t cap) override;
  Result<StatsInputs> stats_inputs(std::string_view problem) override;
  Result<std::vector<SubmissionRecord>> latest_per_student(std::string_view problem) override;
  Result<std::vector<StudentProblemSummary>> student_summaries(
      const std::optional<std::string>& problem) override;

  Result<std::vector<PassbackItem>> claim_passbacks(TimeMs now, TimeMs lease, int limit) override;
  Result<bool> mark_passback_sent(std::string_view id, int http_status) override;
  Result<bool> mark_passback_failed(std::string_view id, std::optional<int> http_status,
                                    std::string_view error) override;
  Result<bool> mark_passback_retry(std::string_view id, std::optional<int> http_status,
                                   std::string_view error, TimeMs next_attempt) override;
  Result<bool> retry_passback(std::string_view id, TimeMs now) override;
  Result<std::vector<PassbackItem>> list_passbacks(std::optional<PassbackStatus> status,
                                                   int limit) override;
  Result<PassbackCounts> count_passbacks() override;

  Result<bool> use_once(std::string_view value, TimeMs expires, TimeMs now) override;
  Result<bool> put_once(std::string_view value, TimeMs expires) override;
  Result<bool> take_once(std::string_view value, TimeMs now) override;

  Result<std::int64_t> delete_records_before(TimeMs before, int limit) override;
  Result<std::int64_t> delete_student(std::string_view student, AuditEntry audit) override;
  Result<AuditPage> list_audit(int limit, std::string_view cursor) override;

  Result<bool> put_student_token(const StudentToken& token) override;
  Result<std::optional<StudentToken>> find_student_token(std::string_view token_sha256,
                                                         TimeMs now) override;

  CommitCounters counters() const override;
  Result<bool> ready() override;
  void close() override;

 private:
  SqlStore(Dialect dialect, ConnectionPool::Opener opener,
           std::unique_ptr<SqlConnection> committer_connection);

  // A committer lane's connection, (re)opened: with SQLite, its WAL checkpoints left to
  // checkpointer_.
  Result<bool> ready_committer_connection(std::size_t lane);
  Result<std::vector<Result<CommitOutcome>>> write_batch(std::size_t lane,
                                                         std::vector<PendingCommit>& batch);
  Result<std::vector<Result<CommitOutcome>>> write_batch_once(SqlConnection& db,
                                                              std::vector<PendingCommit>& batch);
  // `result`, counted in errors_ when it is a store_unavailable.
  template <class T>
  Result<T> counted(Result<T> result) const;
  // One statement on a pooled connection.
  Result<std::vector<SqlRow>> run(std::string_view sql, const std::vector<SqlValue>& params);
  Result<std::optional<SubmissionRecord>> find_one(std::string_view where,
                                                   const std::vector<SqlValue>& params);
  // The record that holds `scope`'s idempotency key `key`, read on `db`: a pooled connection
  // before grading, the committer's inside its batch's transaction for a key found taken.
  // Which of `batch`'s limited records their attempt limit refuses, counted on `db` inside the
  // batch's transaction (PostgreSQL: each (student, problem) locked first, so that batches of
  // other lanes and servers count after this one commits): for each, when the window has room.
  Result<std::vector<std::optional<TimeMs>>> limit_refusals(SqlConnection& db,
                                                            const std::vector<PendingCommit>& batch,
                                                            const std::vector<std::size_t>& order);
  static Result<std::optional<SubmissionRecord>> find_idempotent_on(SqlConnection& db,
                                                                    std::string_view scope,
                                                                    std::string_view key);
  Result<bool> mark_passback(std::string_view id, std::string_view status,
                             std::optional<int> http_status, std::string_view error,
                             TimeMs next_attempt);

  const Dialect dialect_;
  const ConnectionPool::Opener opener_;
  ConnectionPool pool_;
  std::unique_ptr<WalCheckpointer> checkpointer_;  // SQLite only
  // One a committer lane, each that lane's thread's alone (the first is the one that migrated).
  std::vector<std::unique_ptr<SqlConnection>> committer_connections_;
  // Reads and writes on pooled connections that failed (CommitCounters::errors).
  mutable std::atomic<std::uint64_t> errors_{0};
  std::unique_ptr<GroupCommitter> committer_;  // last: its threads use the rest
};

}  // namespace headgrader::store

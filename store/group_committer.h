// Group commit: the gradings that wait to be written are taken together by a committer thread
// and written in one transaction, so that many io threads share one sync of the disk instead
// of queueing for one each. Each caller gets its own outcome through its callback, called on
// the committer thread once the batch's transaction has committed (or failed).
//
// With more than one lane, that many committer threads each take a batch of their own, so
// that one batch is written while another waits for its sync (a database that lets writers
// overlap, as PostgreSQL does; SQLite has one writer and one lane). Batches of different
// lanes commit in either order; each record's outcome is its own batch's.
// Thread-safety: submit(), counters() and close() may be called from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "sql_connection.h"
#include "submission_store.h"

namespace headgrader::store {

struct PendingCommit {
  SubmissionRecord record;
  std::optional<PassbackRequest> passback;
  CommitCallback done;
  std::optional<CommitLimit> limit;  // counted again in the batch's transaction
};

class GroupCommitter {
 public:
  // Writes a whole batch on lane `lane` (0 .. lanes - 1; a lane is one thread, so whatever
  // the writer keeps per lane, such as a connection, is that thread's alone): one outcome per
  // commit, in order (an error only for a commit of which nothing was written), or one error
  // for all (nothing written). It may move the records of a batch it has written into their
  // outcomes.
  using BatchWriter = std::function<Result<std::vector<Result<CommitOutcome>>>(
      std::size_t lane, std::vector<PendingCommit>&)>;

  GroupCommitter(BatchWriter writer, std::size_t max_batch, std::size_t lanes = 1);
  ~GroupCommitter();  // close()
  GroupCommitter(const GroupCommitter&) = delete;
  GroupCommitter& operator=(const GroupCommitter&) = delete;

  // After close(), `done` is called at once with store_unavailable.
  void submit(PendingCommit commit);
  CommitCounters counters() const;
  // Writes what is queued, then stops the threads. Idempotent.
  void close();

 private:
  void run(std::size_t lane);

  const BatchWriter writer_;
  const std::size_t max_batch_;
  mutable std::mutex mutex_;
  std::condition_variable queued_;
  std::deque<PendingCommit> queue_;
  bool closing_ = false;
  CommitCounters counters_;
  std::vector<std::thread> threads_;  // last: they start once the rest is built
};

}  // namespace headgrader::store

// SQLite's WAL checkpoints off the commit path. By default the connection that commits copies
// the WAL back into the database file itself once the WAL holds 1000 pages, so every so often
// one group commit also waits for that copy and its sync. Here the committer's connection only
// counts (its commit hook calls wal_grew()), and a thread of its own, with a connection of its
// own, runs PASSIVE checkpoints: they never block the writer, and readers keep reading.
//
// How often (CheckpointPacing): each checkpoint syncs the WAL and the database file, and
// copies the latest version of every page changed since the one before, so checkpointing
// after every commit (95 to 360 a second under load) copied the pages that every commit
// rewrites (each index's last page, the table's inner pages) over and over, and its syncs
// competed with the commits' own. Once per limits::kSqliteCheckpointPages new pages they are
// copied once per about thirty commits. But the WAL restarts from its first page only when a
// checkpoint has copied all of it before a writer begins, which under a steady stream of
// commits a checkpoint on another thread seldom manages; so once the WAL holds
// limits::kSqliteCommitterCheckpointPages the committer copies what is left itself, right
// after its commit (nothing else writes meanwhile), and the next commit restarts the WAL.
// For that copy to be small, the thread is asked after every commit for the last
// limits::kSqliteCheckpointCatchUpPages pages before that limit. The committer's copy also
// keeps the WAL bounded should the thread fall behind or fail.
// (docs/benchmarks-store.md, 'Checkpoints off the commit path'.)
// Thread-safety: wal_grew() from the committer's thread (one at a time); the rest from the
// owner's.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "sql_connection.h"

namespace headgrader::store {

// When a commit that leaves `pages` pages in the WAL asks the checkpoint thread for a
// checkpoint (see above).
class CheckpointPacing {
 public:
  bool due(int pages);

 private:
  int asked_at_ = 0;  // the WAL's pages when a checkpoint was last asked for
};

class WalCheckpointer {
 public:
  using Opener = std::function<Result<std::unique_ptr<SqlConnection>>()>;

  explicit WalCheckpointer(Opener opener);
  ~WalCheckpointer();  // stops the thread after the checkpoint it is running, if any
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  // A commit left `pages` pages in the WAL: checkpoint soon if CheckpointPacing says so.
  void wal_grew(int pages);

 private:
  void run();

  const Opener opener_;
  std::mutex mutex_;
  std::condition_variable wanted_;
  CheckpointPacing pacing_;  // the committer's thread's alone
  bool due_ = false;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the rest is built
};

}  // namespace headgrader::store

// SQLite's WAL checkpoints off the commit path. By default the connection that commits copies
// the WAL back into the database file itself once the WAL holds 1000 pages, so every so often
// one group commit also waits for that copy and its sync. Here the committer's connection only
// counts (its commit hook calls wal_grew()), and a thread of its own, with a connection of its
// own, runs PASSIVE checkpoints: they never block the writer, and readers keep reading.
// The committer still checkpoints by itself should the WAL grow past
// limits::kSqliteCommitterCheckpointPages (the thread fell far behind), so the WAL stays
// bounded whatever happens here.
// Thread-safety: wal_grew() from any thread; the rest from the owner's.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "sql_connection.h"

namespace headgrader::store {

class WalCheckpointer {
 public:
  using Opener = std::function<Result<std::unique_ptr<SqlConnection>>()>;

  explicit WalCheckpointer(Opener opener);
  ~WalCheckpointer();  // stops the thread after the checkpoint it is running, if any
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  // A commit left `pages` pages in the WAL: checkpoint soon if that is enough of them.
  void wal_grew(int pages);

 private:
  void run();

  const Opener opener_;
  std::mutex mutex_;
  std::condition_variable wanted_;
  bool due_ = false;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the rest is built
};

}  // namespace headgrader::store

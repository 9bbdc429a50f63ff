#include "wal_checkpointer.h"

#include "common/limits.h"

namespace headgrader::store {

WalCheckpointer::WalCheckpointer(Opener opener)
    : opener_(std::move(opener)), thread_([this] { run(); }) {}

WalCheckpointer::~WalCheckpointer() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wanted_.notify_one();
  thread_.join();
}

bool CheckpointPacing::due(int pages) {
  if (pages < asked_at_) asked_at_ = 0;  // the WAL restarted
  const bool catching_up =
      pages >= limits::kSqliteCommitterCheckpointPages - limits::kSqliteCheckpointCatchUpPages;
  if (!catching_up && pages - asked_at_ < limits::kSqliteCheckpointPages) return false;
  asked_at_ = pages;
  return true;
}

void WalCheckpointer::wal_grew(int pages) {
  if (!pacing_.due(pages)) return;
  {
    const std::lock_guard lock(mutex_);
    due_ = true;
  }
  wanted_.notify_one();
}

void WalCheckpointer::run() {
  std::unique_ptr<SqlConnection> connection;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wanted_.wait(lock, [&] { return due_ || stopping_; });
      if (stopping_) return;
      due_ = false;
    }
    if (connection == nullptr) {
      Result<std::unique_ptr<SqlConnection>> opened = opener_();
      if (!opened) continue;  // the committer's own limit keeps the WAL bounded meanwhile
      connection = std::move(opened).value();
    }
    // PASSIVE copies what no reader still needs and never waits for the writer; a failure
    // (the file busy with another server's checkpoint) is retried at the next commit.
    (void)connection->exec_script("PRAGMA wal_checkpoint(PASSIVE)");
  }
}

}  // namespace headgrader::store

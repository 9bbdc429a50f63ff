#include "group_committer.h"

#include <pthread.h>

#include <algorithm>
#include <exception>
#include <string>

namespace headgrader::store {

GroupCommitter::GroupCommitter(BatchWriter writer, std::size_t max_batch, std::size_t lanes)
    : writer_(std::move(writer)), max_batch_(max_batch) {
  for (std::size_t lane = 0; lane < std::max<std::size_t>(lanes, 1); ++lane) {
    threads_.emplace_back([this, lane] {
      // Named, so that top -H and perf show which thread waits for the database.
      pthread_setname_np(pthread_self(), ("hg-commit-" + std::to_string(lane)).c_str());
      run(lane);
    });
  }
}

GroupCommitter::~GroupCommitter() { close(); }

void GroupCommitter::submit(PendingCommit commit) {
  {
    const std::lock_guard lock(mutex_);
    if (!closing_) {
      queue_.push_back(std::move(commit));
      queued_.notify_one();
      return;
    }
    ++counters_.errors;
  }
  commit.done(store_error("the store is closed"));
}

CommitCounters GroupCommitter::counters() const {
  const std::lock_guard lock(mutex_);
  return counters_;
}

void GroupCommitter::close() {
  {
    const std::lock_guard lock(mutex_);
    closing_ = true;
    queued_.notify_all();
  }
  for (std::thread& thread : threads_) {
    if (thread.joinable() && thread.get_id() != std::this_thread::get_id()) thread.join();
  }
}

// No waiting for more to arrive: while one batch is written, the next one gathers by itself,
// so a lone grading is written at once and a busy server gets large batches.
void GroupCommitter::run(std::size_t lane) {
  for (;;) {
    std::vector<PendingCommit> batch;
    {
      std::unique_lock lock(mutex_);
      queued_.wait(lock, [&] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;  // closing, and everything written
      while (!queue_.empty() && batch.size() < max_batch_) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      ++counters_.batches;
      counters_.records += batch.size();
      ++counters_.batch_sizes[std::min(batch.size(), counters_.batch_sizes.size() - 1)];
    }
    Result<std::vector<Result<CommitOutcome>>> written = store_error("the store failed to write");
    try {
      written = writer_(lane, batch);
    } catch (const std::exception& e) {
      written = store_error(std::string("the store failed to write: ") + e.what());
    }
    std::uint64_t failed = written ? 0 : batch.size();
    if (written) {
      for (const Result<CommitOutcome>& outcome : written.value()) {
        if (!outcome && outcome.error().code == ErrorCode::kStoreUnavailable) ++failed;
      }
    }
    if (failed > 0) {
      const std::lock_guard lock(mutex_);
      counters_.errors += failed;
    }
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (written) {
        batch[i].done(std::move(written.value()[i]));
      } else {
        batch[i].done(written.error());
      }
    }
  }
}

}  // namespace headgrader::store

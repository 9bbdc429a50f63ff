// store/group_committer.h on its own: what a lane is. The batch writer is the committer's
// extension point (the store passes one that writes SQL); these tests pass one that holds a
// batch open, to see which batches the committer hands out meanwhile. The stores' own tests
// (store_commits_test.cc) run the same committer on real SQLite and PostgreSQL.
#include "group_committer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <vector>

namespace headgrader::store {
namespace {

// A writer whose first batch waits until release(); every batch is one outcome per commit.
class HeldWriter {
 public:
  Result<std::vector<Result<CommitOutcome>>> write(std::size_t lane,
                                                   std::vector<PendingCommit>& batch) {
    std::unique_lock lock(mutex_);
    lanes_.push_back(lane);
    const bool first = lanes_.size() == 1;
    changed_.notify_all();
    if (first) changed_.wait_for(lock, std::chrono::seconds(10), [&] { return released_; });
    return std::vector<Result<CommitOutcome>>(batch.size(), CommitOutcome{});
  }
  void release() {
    const std::lock_guard lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }
  // Waits (at most 10 s) until `count` batches have been started; how many were.
  std::size_t wait_for_batches(std::size_t count) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(10), [&] { return lanes_.size() >= count; });
    return lanes_.size();
  }
  std::vector<std::size_t> lanes() {
    const std::lock_guard lock(mutex_);
    return lanes_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::size_t> lanes_;
  bool released_ = false;
};

PendingCommit pending(std::promise<bool>& written) {
  PendingCommit commit;
  commit.done = [&written](Result<CommitOutcome> outcome) { written.set_value(bool(outcome)); };
  return commit;
}

TEST(GroupCommitter, WhileOneLanesBatchWaitsTheOtherLaneWritesTheNext) {
  HeldWriter writer;
  GroupCommitter committer(
      [&](std::size_t lane, std::vector<PendingCommit>& batch) {
        return writer.write(lane, batch);
      },
      /*max_batch=*/256, /*lanes=*/2);
  std::promise<bool> first, second;
  committer.submit(pending(first));
  ASSERT_EQ(writer.wait_for_batches(1), 1u);
  committer.submit(pending(second));
  // The first batch is still held: the second is written by the other lane all the same.
  EXPECT_TRUE(second.get_future().get());
  const std::vector<std::size_t> lanes = writer.lanes();
  ASSERT_EQ(lanes.size(), 2u);
  EXPECT_NE(lanes[0], lanes[1]);
  writer.release();
  EXPECT_TRUE(first.get_future().get());
  committer.close();
  EXPECT_EQ(committer.counters().batches, 2u);
  EXPECT_EQ(committer.counters().records, 2u);
}

TEST(GroupCommitter, WithOneLaneWhatArrivesDuringABatchWaitsAndGoesTogether) {
  HeldWriter writer;
  GroupCommitter committer(
      [&](std::size_t lane, std::vector<PendingCommit>& batch) {
        return writer.write(lane, batch);
      },
      /*max_batch=*/256, /*lanes=*/1);
  std::promise<bool> first;
  committer.submit(pending(first));
  ASSERT_EQ(writer.wait_for_batches(1), 1u);
  std::vector<std::promise<bool>> later(5);
  for (auto& promise : later) committer.submit(pending(promise));
  writer.release();
  EXPECT_TRUE(first.get_future().get());
  for (auto& promise : later) EXPECT_TRUE(promise.get_future().get());
  committer.close();
  EXPECT_EQ(writer.lanes(), std::vector<std::size_t>(2, 0));  // one batch for the five
  EXPECT_EQ(committer.counters().records, 6u);
}

TEST(GroupCommitter, CloseWritesWhatIsQueuedOnEveryLaneThenRefuses) {
  std::atomic<int> written{0};
  GroupCommitter committer(
      [&](std::size_t,
          std::vector<PendingCommit>& batch) -> Result<std::vector<Result<CommitOutcome>>> {
        written += static_cast<int>(batch.size());
        return std::vector<Result<CommitOutcome>>(batch.size(), CommitOutcome{});
      },
      /*max_batch=*/4, /*lanes=*/3);
  std::vector<std::promise<bool>> promises(40);
  for (auto& promise : promises) committer.submit(pending(promise));
  committer.close();
  for (auto& promise : promises) EXPECT_TRUE(promise.get_future().get());
  EXPECT_EQ(written.load(), 40);
  std::promise<bool> late;
  committer.submit(pending(late));
  EXPECT_FALSE(late.get_future().get());
}

}  // namespace
}  // namespace headgrader::store

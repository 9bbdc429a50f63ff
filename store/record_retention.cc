#include "record_retention.h"

#include <chrono>

#include "common/limits.h"
#include "common/rfc3339.h"

namespace headgrader::store {

RecordRetention::RecordRetention(RecordDeletion& records, int days,
                                 std::function<void(const std::string&)> log)
    : records_(records), days_(days), log_(std::move(log)), thread_([this] { run(); }) {}

RecordRetention::~RecordRetention() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::string RecordRetention::sweep_line(std::int64_t deleted, int days, TimeMs before) {
  return "retention: deleted " + std::to_string(deleted) + (deleted == 1 ? " record" : " records") +
         " older than " + std::to_string(days) + (days == 1 ? " day" : " days") + " (before " +
         format_rfc3339_ms(before) + ")";
}

void RecordRetention::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    const TimeMs before = now_ms() - TimeMs{days_} * 86'400'000;
    std::int64_t deleted = 0;
    std::string failure;
    for (;;) {
      Result<std::int64_t> batch =
          records_.delete_records_before(before, limits::kDeleteBatchRecords);
      if (!batch) {
        failure = batch.error().message;
        break;
      }
      deleted += *batch;
      const std::lock_guard check(mutex_);
      if (*batch < limits::kDeleteBatchRecords || stopping_) break;
    }
    log_(failure.empty() ? sweep_line(deleted, days_, before)
                         : sweep_line(deleted, days_, before) +
                               "; then the store failed: " + failure + " (tried again in " +
                               std::to_string(limits::kRetentionInterval.count()) + " h)");
    lock.lock();
    wake_.wait_for(lock, limits::kRetentionInterval, [this] { return stopping_; });
  }
}

}  // namespace headgrader::store

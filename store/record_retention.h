// --retain-days N (API.md §17): a thread of its own deletes the records older than N days
// (store/record_deletion.h) at once and then every limits::kRetentionInterval, and says what
// it deleted in one line of the server's log.
// Thread-safety: constructed and destroyed by one thread; the work runs on its own thread.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "record_deletion.h"

namespace headgrader::store {

class RecordRetention {
 public:
  // `log` gets one line per sweep: how many records were deleted and before when, or the
  // store's error (the next sweep tries again). The first sweep starts now.
  RecordRetention(RecordDeletion& records, int days, std::function<void(const std::string&)> log);
  // Stops: a sweep in progress ends after its current batch.
  ~RecordRetention();
  RecordRetention(const RecordRetention&) = delete;
  RecordRetention& operator=(const RecordRetention&) = delete;

  // The line of one sweep that deleted `deleted` records older than `days` days (before
  // `before`), as logged.
  static std::string sweep_line(std::int64_t deleted, int days, TimeMs before);

 private:
  void run();

  RecordDeletion& records_;
  const int days_;
  const std::function<void(const std::string&)> log_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;  // last: it uses the rest
};

}  // namespace headgrader::store

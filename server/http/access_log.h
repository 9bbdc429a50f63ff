// One line per request on stderr: when, what was asked, what was answered, how long it took,
// for a grading the problem and whether it passed, and the answer's X-Request-Id. A JSON
// object by default, or the same fields as logfmt text (--log-format text). Never a body, a
// query, a key, a token or a student, never anything from a problem's `reference`: the log is
// safe to ship to a shared collector.
// Lines are written in batches by a thread of the log's own, at most
// limits::kAccessLogFlushInterval after the answer: one write(2) per request cost a grading
// about a fifth of its throughput when stderr is a pipe read by another process, as under
// Docker (docs/benchmarks.md).
// Thread-safety: AccessLog::write may be called from any thread and keeps whole lines in the
// order of the calls; format_access_log is pure.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "common/rfc3339.h"
#include "headgrader/limits.h"

namespace headgrader::server {

// Writes `line` and a newline to stderr in one write(2), so that lines from several threads
// (and the access log's) do not interleave.
void stderr_line(const std::string& line);

struct AccessLogEntry {
  std::chrono::system_clock::time_point time;  // when the request's first byte came
  std::string_view method;                     // empty when the request line did not parse
  std::string_view path;                       // logged_path of the target as sent
  unsigned status = 0;
  double latency_ms = 0;     // first byte to response written
  std::string_view problem;  // empty: null
  std::optional<bool> passed;
  std::string_view request_id;  // the answer's X-Request-Id (request_id.h); empty: null
};

// --log-format: a JSON object a line (the default), or the same fields as logfmt text.
enum class LogFormat { kJson, kText };

// The target as the access log shows it: without its query, whatever the route, the form
// (absolute "http://host/…" too) or the answer (a 400 or 431 before routing too). Queries
// name students (/v1/submissions?student=…, also spelt %73ubmissions), and student data
// never reaches the log; so does the path of DELETE /v1/students/{student}: any path under
// /v1/students/, however spelt, is logged as "/v1/students/{student}".
std::string_view logged_path(std::string_view target);

// {"time":"2024-05-01T12:00:00.123Z","method":…,"path":…,"status":…,"latency_ms":…,
//  "problem":…,"passed":…,"request_id":…} without a newline. Long paths are cut at
// limits::kMaxLoggedPathBytes.
// kText: the same fields in the same order as logfmt, `time=… method=GET path=/healthz
// status=200 latency_ms=0.042 problem=- passed=- request_id=…`, null as "-"; the client's
// bytes (method, path) outside printable ASCII, and '"', '=' and '\\', become '?', so that a
// field never splits or forges another.
std::string format_access_log(const AccessLogEntry& entry, LogFormat format = LogFormat::kJson);

// The log's lines, written to a file descriptor (stderr in the server) in batches.
class AccessLog {
 public:
  explicit AccessLog(int fd,
                     std::chrono::milliseconds flush_interval =
                         std::chrono::milliseconds(limits::kAccessLogFlushInterval),
                     LogFormat format = LogFormat::kJson);
  // Writes the lines still waiting.
  ~AccessLog() { close(); }
  AccessLog(const AccessLog&) = delete;
  AccessLog& operator=(const AccessLog&) = delete;

  // format_access_log(entry, format) plus '\n', written within the flush interval. Waits only when
  // limits::kAccessLogMaxPendingBytes are already waiting (the descriptor does not take them).
  void write(const AccessLogEntry& entry);

  // Writes the lines still waiting and stops the writing thread; write() must not follow.
  void close();

 private:
  void run_flusher();
  // Writes pending_ out; `lock` holds mutex_ and holds it again on return.
  void flush(std::unique_lock<std::mutex>& lock);

  const int fd_;
  const std::chrono::milliseconds flush_interval_;
  const LogFormat format_;
  std::mutex mutex_;
  std::condition_variable wake_flusher_, room_;
  std::string pending_;  // whole lines not yet written
  std::string writing_;  // the batch being written, outside the lock (by the flusher only)
  bool stopping_ = false;
  std::thread flusher_;  // last: started once the members above are
};

}  // namespace headgrader::server

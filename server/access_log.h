// One JSON line per request on stderr: when, what was asked, what was answered, how long it
// took, and for a grading the problem and whether it passed. Never a body, never anything
// from a problem's `reference`: the log is safe to ship to a shared collector.
// Thread-safety: write_access_log serialises whole lines; format_access_log is pure.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace headgrader::server {

struct AccessLogEntry {
  std::chrono::system_clock::time_point time;  // when the request's first byte came
  std::string_view method;                     // empty when the request line did not parse
  std::string_view path;                       // the target as sent, query included
  unsigned status = 0;
  double latency_ms = 0;     // first byte to response written
  std::string_view problem;  // empty: null
  std::optional<bool> passed;
};

// {"time":"2024-05-01T12:00:00.123Z","method":…,"path":…,"status":…,"latency_ms":…,
//  "problem":…,"passed":…} without a newline. Long paths are cut at kMaxLoggedPathBytes.
std::string format_access_log(const AccessLogEntry& entry);

// format_access_log plus '\n', written to stderr in one piece.
void write_access_log(const AccessLogEntry& entry);

inline constexpr std::size_t kMaxLoggedPathBytes = 256;

}  // namespace headgrader::server

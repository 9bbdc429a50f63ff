#include "access_log.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <mutex>

#include "headgrader/report.h"

namespace headgrader::server {
namespace {

// ISO 8601 in UTC with milliseconds.
std::string format_time(std::chrono::system_clock::time_point time) {
  using namespace std::chrono;
  const auto millis = duration_cast<milliseconds>(time.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(millis / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  const std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  const int fraction = static_cast<int>(millis % 1000);
  std::string result(text, length);
  result += '.';
  result += static_cast<char>('0' + fraction / 100);
  result += static_cast<char>('0' + fraction / 10 % 10);
  result += static_cast<char>('0' + fraction % 10);
  result += 'Z';
  return result;
}

Json string_or_null(std::string_view text) {
  return text.empty() ? Json(nullptr) : Json(std::string(text));
}

}  // namespace

std::string format_access_log(const AccessLogEntry& entry) {
  const Json line = {
      {"time", format_time(entry.time)},
      {"method", string_or_null(entry.method)},
      {"path", string_or_null(entry.path.substr(0, kMaxLoggedPathBytes))},
      {"status", entry.status},
      // Microsecond resolution is plenty and keeps the lines short.
      {"latency_ms", std::round(entry.latency_ms * 1000.0) / 1000.0},
      {"problem", string_or_null(entry.problem)},
      {"passed", entry.passed ? Json(*entry.passed) : Json(nullptr)},
  };
  // Paths are the client's bytes: replace anything that is not UTF-8 instead of failing.
  return line.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void write_access_log(const AccessLogEntry& entry) {
  static std::mutex mutex;
  const std::string line = format_access_log(entry) + '\n';
  const std::lock_guard lock(mutex);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace headgrader::server

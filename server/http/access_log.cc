#include "access_log.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "common/url_encoding.h"
#include "headgrader/json_writer.h"

namespace headgrader::server {
namespace {

void string_or_null(JsonWriter& out, std::string_view key, std::string_view text) {
  out.key(key);
  // Method and path are the client's bytes: anything that is not UTF-8 is replaced.
  if (text.empty()) {
    out.null();
  } else {
    out.untrusted_value(text);
  }
}

// All of `text`, or what the descriptor takes before it fails: a log that cannot be written
// (its reader gone) is lost, and the service goes on.
void write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n > 0) {
      text.remove_prefix(static_cast<std::size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd ready{fd, POLLOUT, 0};  // a non-blocking descriptor: wait as a blocking one would
      (void)::poll(&ready, 1, -1);
    } else if (n == 0 || errno != EINTR) {
      return;
    }
  }
}

}  // namespace

void stderr_line(const std::string& line) {
  const std::string text = line + "\n";
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + written, text.size() - written);
    if (n <= 0) return;
    written += static_cast<std::size_t>(n);
  }
}

namespace {

// DELETE /v1/students/{student} names a student in its path (API.md §17).
constexpr std::string_view kStudentPath = "/v1/students/{student}";

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
           return a == std::tolower(static_cast<unsigned char>(b));
         });
}

// Whether `path` is under /v1/students/, however it is spelt: the router decodes each segment
// before it matches ("/v1/%73tudents/ada" is the route too) and takes the absolute form.
bool names_a_student(std::string_view path) {
  for (const std::string_view scheme : {"http://", "https://"}) {
    if (!starts_with_ignoring_case(path, scheme)) continue;
    const std::size_t slash = path.find('/', scheme.size());
    if (slash == std::string_view::npos) return false;
    path.remove_prefix(slash);
    break;
  }
  if (!path.starts_with('/')) return false;
  path.remove_prefix(1);
  for (const std::string_view wanted : {"v1", "students"}) {
    const std::size_t slash = path.find('/');
    if (slash == std::string_view::npos) return false;
    const std::optional<std::string> segment = percent_decode(path.substr(0, slash), false);
    if (!segment || *segment != wanted) return false;
    path.remove_prefix(slash + 1);
  }
  return true;
}

}  // namespace

std::string_view logged_path(std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  return names_a_student(path) ? kStudentPath : path;
}

namespace {

// A logfmt value: the client's bytes that could split a field (a space, '=', '"') or that are
// not printable ASCII as '?'; empty as "-".
void text_field(std::string& line, std::string_view key, std::string_view value) {
  if (!line.empty()) line += ' ';
  line += key;
  line += '=';
  if (value.empty()) {
    line += '-';
    return;
  }
  for (const char c : value) {
    line += c > ' ' && c <= '~' && c != '"' && c != '=' && c != '\\' ? c : '?';
  }
}

std::string format_text(const AccessLogEntry& entry) {
  std::string line;
  line.reserve(200);
  Rfc3339Text time;
  text_field(line, "time", write_rfc3339_ms(entry.time, time));
  text_field(line, "method", entry.method);
  text_field(line, "path", logged_path(entry.path).substr(0, limits::kMaxLoggedPathBytes));
  text_field(line, "status", std::to_string(entry.status));
  char latency[32];
  const int n = std::snprintf(latency, sizeof latency, "%.3f", entry.latency_ms);
  text_field(line, "latency_ms",
             std::string_view(latency, n > 0 ? static_cast<std::size_t>(n) : 0));
  text_field(line, "problem", entry.problem);
  text_field(line, "passed", entry.passed ? (*entry.passed ? "true" : "false") : "");
  text_field(line, "request_id", entry.request_id);
  return line;
}

}  // namespace

std::string format_access_log(const AccessLogEntry& entry, LogFormat format) {
  if (format == LogFormat::kText) return format_text(entry);
  JsonWriter out(256);  // a line is a few hundred bytes
  out.begin_object();
  Rfc3339Text time;
  out.key("time").value(write_rfc3339_ms(entry.time, time));
  string_or_null(out, "method", entry.method);
  string_or_null(out, "path", logged_path(entry.path).substr(0, limits::kMaxLoggedPathBytes));
  out.key("status").value(static_cast<std::uint64_t>(entry.status));
  // Microsecond resolution is plenty and keeps the lines short.
  out.key("latency_ms").value(std::round(entry.latency_ms * 1000.0) / 1000.0);
  string_or_null(out, "problem", entry.problem);
  out.key("passed");
  if (entry.passed) {
    out.value(*entry.passed);
  } else {
    out.null();
  }
  string_or_null(out, "request_id", entry.request_id);
  return out.end_object().take();
}

AccessLog::AccessLog(int fd, std::chrono::milliseconds flush_interval, LogFormat format)
    : fd_(fd),
      flush_interval_(flush_interval),
      format_(format),
      flusher_([this] { run_flusher(); }) {}

void AccessLog::close() {
  if (!flusher_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_flusher_.notify_one();
  flusher_.join();
}

void AccessLog::write(const AccessLogEntry& entry) {
  std::string line = format_access_log(entry, format_);
  line += '\n';
  std::unique_lock lock(mutex_);
  room_.wait(lock, [&] { return pending_.size() < limits::kAccessLogMaxPendingBytes; });
  const bool was_empty = pending_.empty();
  pending_ += line;
  // The flusher sleeps until there is a line, then gathers lines for one interval, unless
  // that many bytes wait first.
  if (was_empty || pending_.size() >= limits::kAccessLogMaxPendingBytes) {
    wake_flusher_.notify_one();
  }
}

void AccessLog::run_flusher() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_flusher_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
    wake_flusher_.wait_for(lock, flush_interval_, [&] {
      return stopping_ || pending_.size() >= limits::kAccessLogMaxPendingBytes;
    });
    if (!pending_.empty()) flush(lock);
    if (stopping_ && pending_.empty()) return;
  }
}

void AccessLog::flush(std::unique_lock<std::mutex>& lock) {
  writing_.swap(pending_);  // both keep their capacity: no allocation once warmed up
  room_.notify_all();
  lock.unlock();
  write_all(fd_, writing_);
  writing_.clear();
  lock.lock();
}

}  // namespace headgrader::server

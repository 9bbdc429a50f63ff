// The access log: each line one JSON object with the agreed fields, and its writer, lines
// written in batches by its own thread, each whole, in the order they were given, soon
// after they were given, and all of them by the time it is gone.
#include "access_log.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "headgrader/limits.h"
#include "headgrader/report.h"

namespace headgrader::server {
namespace {

using namespace std::chrono_literals;

// A pipe whose read end is drained by a thread of its own, so that the writer never waits.
class DrainedPipe {
 public:
  DrainedPipe() {
    if (pipe(fds_) != 0) throw std::runtime_error("pipe");
    reader_ = std::thread([this] {
      char chunk[4096];
      for (ssize_t n; (n = read(fds_[0], chunk, sizeof chunk)) != 0;) {
        if (n < 0) continue;  // EINTR
        const std::lock_guard lock(mutex_);
        text_.append(chunk, static_cast<std::size_t>(n));
      }
    });
  }
  ~DrainedPipe() {
    close_write_end();
    finished();
    close(fds_[0]);
  }

  int write_end() const { return fds_[1]; }
  void close_write_end() {
    if (fds_[1] >= 0) close(fds_[1]);
    fds_[1] = -1;
  }
  // Everything read so far; after close_write_end() and finished(), everything written.
  std::string text() {
    const std::lock_guard lock(mutex_);
    return text_;
  }
  void finished() {
    if (reader_.joinable()) reader_.join();
  }

 private:
  int fds_[2] = {-1, -1};
  std::thread reader_;
  std::mutex mutex_;
  std::string text_;
};

AccessLogEntry entry_for(const std::string& path) {
  AccessLogEntry entry;
  entry.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1714564800123));
  entry.method = "GET";
  entry.path = path;
  entry.status = 200;
  return entry;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(AccessLogBatches, ALineArrivesSoonWithoutMoreRequestsOrTheLogClosing) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  {
    AccessLog log(fds[1], 10ms);
    log.write(entry_for("/healthz"));
    pollfd readable{fds[0], POLLIN, 0};
    ASSERT_EQ(poll(&readable, 1, 5000), 1) << "nothing written while the log is open";
    std::string text(4096, '\0');
    text.resize(static_cast<std::size_t>(read(fds[0], text.data(), text.size())));
    EXPECT_EQ(text, format_access_log(entry_for("/healthz")) + "\n");
  }
  close(fds[0]);
  close(fds[1]);
}

TEST(AccessLogBatches, ClosingWritesTheLinesStillWaitingAtOnce) {
  DrainedPipe pipe;
  const auto started = std::chrono::steady_clock::now();
  {
    AccessLog log(pipe.write_end(), std::chrono::hours(1));  // no batch is due before the end
    for (int i = 0; i < 3; ++i) log.write(entry_for("/" + std::to_string(i)));
  }
  // Closing does not wait for the batch to be due.
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
  pipe.close_write_end();
  pipe.finished();
  EXPECT_EQ(pipe.text(), format_access_log(entry_for("/0")) + "\n" +
                             format_access_log(entry_for("/1")) + "\n" +
                             format_access_log(entry_for("/2")) + "\n");
}

TEST(AccessLogBatches, ManyThreadsLinesArriveWholeEachThreadsInItsOrder) {
  constexpr int kThreads = 8;
  constexpr int kLines = 3000;  // ~400 KB in all: many batches, and more than a pipe holds
  DrainedPipe pipe;
  {
    AccessLog log(pipe.write_end(), 1ms);
    std::vector<std::thread> writers;
    for (int t = 0; t < kThreads; ++t) {
      writers.emplace_back([&log, t] {
        for (int i = 0; i < kLines; ++i) {
          log.write(entry_for("/" + std::to_string(t) + "/" + std::to_string(i)));
        }
      });
    }
    for (std::thread& writer : writers) writer.join();
  }
  pipe.close_write_end();
  pipe.finished();
  const std::vector<std::string> lines = lines_of(pipe.text());
  ASSERT_EQ(lines.size(), std::size_t{kThreads} * kLines);
  std::vector<int> next(kThreads, 0);
  for (const std::string& line : lines) {
    const nlohmann::json entry = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(entry.is_object()) << line;
    const std::string path = entry["path"];
    const std::size_t slash = path.find('/', 1);
    const int t = std::stoi(path.substr(1, slash - 1));
    const int i = std::stoi(path.substr(slash + 1));
    ASSERT_EQ(i, next[static_cast<std::size_t>(t)]) << "thread " << t << "'s lines out of order";
    ++next[static_cast<std::size_t>(t)];
  }
}

// --- The line ---------------------------------------------------------------------------------

TEST(AccessLog, IsOneJsonLineWithTheAgreedFields) {
  AccessLogEntry entry;
  entry.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1714564800123));
  entry.method = "POST";
  entry.path = "/v1/problems/consonant-anywhere/grade";
  entry.status = 200;
  entry.latency_ms = 0.4567;
  entry.problem = "consonant-anywhere";
  entry.passed = true;
  entry.request_id = "9f0c4e2a7d1b4c3e";
  EXPECT_EQ(format_access_log(entry),
            R"({"time":"2024-05-01T12:00:00.123Z","method":"POST",)"
            R"("path":"/v1/problems/consonant-anywhere/grade","status":200,"latency_ms":0.457,)"
            R"("problem":"consonant-anywhere","passed":true,"request_id":"9f0c4e2a7d1b4c3e"})");
}

TEST(AccessLog, TheTextFormatHasTheSameFieldsInTheSameOrderAsLogfmt) {
  AccessLogEntry entry;
  entry.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1714564800123));
  entry.method = "POST";
  entry.path = "/v1/problems/consonant-anywhere/grade?student=ann";
  entry.status = 200;
  entry.latency_ms = 0.4567;
  entry.problem = "consonant-anywhere";
  entry.passed = false;
  entry.request_id = "9f0c4e2a7d1b4c3e";
  EXPECT_EQ(format_access_log(entry, LogFormat::kText),
            "time=2024-05-01T12:00:00.123Z method=POST "
            "path=/v1/problems/consonant-anywhere/grade status=200 latency_ms=0.457 "
            "problem=consonant-anywhere passed=false request_id=9f0c4e2a7d1b4c3e");
  const Json json = Json::parse(format_access_log(entry));
  std::vector<std::string> keys;
  for (const auto& [key, value] : json.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"time", "method", "path", "status", "latency_ms",
                                            "problem", "passed", "request_id"}));
}

TEST(AccessLog, TextFieldsUnknownAreDashesAndTheClientsBytesCannotSplitAField) {
  AccessLogEntry entry;
  entry.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(5));
  entry.path = "/a b=\"c\"\\\xff\x01";
  entry.status = 400;
  EXPECT_EQ(format_access_log(entry, LogFormat::kText),
            "time=1970-01-01T00:00:00.005Z method=- path=/a?b??c???? status=400 "
            "latency_ms=0.000 problem=- passed=- request_id=-");
}

TEST(AccessLog, UnknownPartsAreNullAndBadBytesAreReplaced) {
  AccessLogEntry entry;
  entry.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(5));
  entry.path = "/\xff";
  entry.status = 400;
  const Json line = Json::parse(format_access_log(entry));
  EXPECT_EQ(line["time"], "1970-01-01T00:00:00.005Z");
  EXPECT_TRUE(line["method"].is_null());
  EXPECT_EQ(line["path"], "/\xEF\xBF\xBD");
  EXPECT_TRUE(line["problem"].is_null());
  EXPECT_TRUE(line["passed"].is_null());
}

TEST(AccessLog, TimesAreUtcCalendarDatesWithMilliseconds) {
  using namespace std::chrono;
  const auto at = [](sys_days day, milliseconds since_midnight) {
    AccessLogEntry entry;
    entry.time = system_clock::time_point(day + since_midnight);
    return Json::parse(format_access_log(entry))["time"].get<std::string>();
  };
  EXPECT_EQ(at(2024y / February / 29, 86'399'999ms), "2024-02-29T23:59:59.999Z");
  EXPECT_EQ(at(2000y / March / 1, 0ms), "2000-03-01T00:00:00.000Z");
  EXPECT_EQ(at(2026y / December / 31, hours(13) + minutes(7) + seconds(5) + 40ms),
            "2026-12-31T13:07:05.040Z");
  EXPECT_EQ(at(1999y / January / 9, 3'600'000ms), "1999-01-09T01:00:00.000Z");
}

TEST(AccessLog, APathCutInsideACharacterEndsInAReplacement) {
  // "é" is two bytes; the cut at kMaxLoggedPathBytes leaves only its first.
  const std::string path = std::string(limits::kMaxLoggedPathBytes - 1, 'a') + "é";
  AccessLogEntry entry;
  entry.path = path;
  const Json line = Json::parse(format_access_log(entry));
  EXPECT_EQ(line["path"], std::string(limits::kMaxLoggedPathBytes - 1, 'a') + "\xEF\xBF\xBD");
}

TEST(AccessLog, APathUnderStudentsIsLoggedAsTheRouteHoweverItIsSpelt) {
  for (const std::string path :
       {"/v1/students/Ada%20Lovelace", "/v1/students/ada", "/v1/%73tudents/ada",
        "/%76%31/students/ada?x=1", "http://host:8080/v1/students/ada", "HTTPS://h/v1/students/a/b",
        "/v1/students/"}) {
    EXPECT_EQ(logged_path(path), "/v1/students/{student}") << path;
    AccessLogEntry entry = entry_for(path);
    entry.method = "DELETE";
    for (const LogFormat format : {LogFormat::kJson, LogFormat::kText}) {
      const std::string line = format_access_log(entry, format);
      EXPECT_EQ(line.find("ada"), std::string::npos) << line;
      EXPECT_EQ(line.find("Ada"), std::string::npos) << line;
      EXPECT_NE(line.find("/v1/students/{student}"), std::string::npos) << line;
    }
  }
  // Other paths are logged as sent.
  for (const std::string path : {"/v1/students", "/v1/students.csv", "/v2/students/ada",
                                 "/v1/submissions/ab12", "/v1/studentsx/ada"}) {
    EXPECT_EQ(logged_path(path), path) << path;
  }
}

}  // namespace
}  // namespace headgrader::server

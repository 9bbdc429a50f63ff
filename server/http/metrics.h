// The server's metrics (API.md §17; docs/operations.md, Metrics): what the routes and the
// sessions count as they answer, and the text of GET /metrics. One Metrics object is owned
// by the running server (main.cc) and handed to what counts (the Router, through Service;
// the sessions, through the Router); what is cheaper to read than to count (open
// connections, queued long work, the store's commit batches and passbacks) is read when
// scraped instead.
// Counting never takes a lock: relaxed atomic counters, histograms as fixed arrays of
// atomic buckets, and the per-problem counters in a table whose slots are claimed once (a
// lock only the first time a problem is graded) and then found without one. No label holds
// anything from a request: problem ids come from the served folder, routes are the route
// table's patterns, codes are statuses.
// Thread-safety: every member may be called from any thread at once.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "metrics_text.h"

namespace headgrader::server {

// Problems that headgrader_gradings_total keeps a count of: a slot a problem id, kept for the
// process's life so that a counter never goes back; far more ids than a course serves, few
// enough that a scrape stays small. Gradings of problems beyond are counted under
// problem="_other" (no problem id has an underscore). Beside the registry rather than in
// common/limits.h, which every file of the project includes: a limit of this header alone.
inline constexpr std::size_t kMetricsProblemSlots = 1024;

// A count that only goes up.
class Counter {
 public:
  void add(std::uint64_t n = 1) noexcept { value_.fetch_add(n, std::memory_order_relaxed); }
  std::uint64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

// Observations of whole units (nanoseconds, records) into fixed buckets; shown in
// `units_per_shown` times larger units (1e9 ns: seconds).
class Histogram {
 public:
  static constexpr std::size_t kMaxBounds = 16;
  // `bounds` (ascending, at most kMaxBounds, in the shown unit) must outlive the histogram.
  Histogram(std::span<const double> bounds, double units_per_shown);
  void observe(std::uint64_t units) noexcept;
  HistogramCounts counts() const;

 private:
  const std::span<const double> bounds_;
  const double units_per_shown_;
  std::array<std::uint64_t, kMaxBounds> unit_bounds_{};
  std::array<std::atomic<std::uint64_t>, kMaxBounds + 1> buckets_{};
  std::atomic<std::uint64_t> sum_{0};
};

// Seconds buckets for a grading: most take well under a millisecond, a long one (a large
// exhaustive set, a diagnosis) tens or hundreds of milliseconds, the longest seconds.
std::span<const double> grading_seconds_bounds();
// Records in one commit of the store: 1 when idle, up to limits::kMaxCommitBatch under load.
std::span<const double> commit_batch_bounds();

// What a scrape reads from the running server rather than counting it.
struct MetricsSources {
  std::function<std::size_t()> open_connections;  // connections being served
  std::function<std::size_t()> long_work;         // long gradings queued or running
};

class Metrics {
 public:
  // `routes`: the route table's patterns (route_patterns()), which must outlive the object;
  // a request of no route is counted as route "other".
  explicit Metrics(std::vector<std::string_view> routes);
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // A grading of `problem` (an id of the served folder) that ran, and how long it took.
  void count_grading(std::string_view problem, bool passed, std::chrono::nanoseconds took);
  // An answer written: `route` is an index of `routes`, or routes.size() for none.
  void count_request(std::size_t route, unsigned status) noexcept;
  std::size_t other_route() const noexcept { return routes_.size(); }
  // A request read whole and not yet answered (in flight): started, then finished once.
  void request_started() noexcept { in_flight_.fetch_add(1, std::memory_order_relaxed); }
  void request_finished() noexcept { in_flight_.fetch_sub(1, std::memory_order_relaxed); }
  // A reload of the problems folder (SIGHUP, a change seen in the folder), and how long it took.
  void count_reload(bool ok, std::chrono::nanoseconds took) noexcept;

  // Set once, before the server answers its first request.
  void set_sources(MetricsSources sources) { sources_ = std::move(sources); }

  // Every metric counted here, and those of the sources, as exposition text.
  void write(MetricsText& text) const;

  // The count of (problem, passed) so far (tests).
  std::uint64_t gradings(std::string_view problem, bool passed) const;

 private:
  struct ProblemCounts {
    std::string problem;
    Counter passed, failed;
  };
  // The slot of `problem`, claimed if new; the overflow's when the table is full.
  ProblemCounts& problem_counts(std::string_view problem);
  const ProblemCounts* find_problem(std::string_view problem) const;

  const std::vector<std::string_view> routes_;
  // (routes_.size() + 1) rows of kStatuses counters: [route][status - kFirstStatus].
  static constexpr unsigned kFirstStatus = 100, kStatuses = 500;
  const std::unique_ptr<Counter[]> requests_;
  std::array<std::atomic<ProblemCounts*>, kMetricsProblemSlots> problems_{};
  std::mutex claiming_;                                // only to claim a slot
  std::vector<std::unique_ptr<ProblemCounts>> owned_;  // under claiming_
  ProblemCounts overflow_{"_other", {}, {}};
  Histogram grading_seconds_;
  std::atomic<std::int64_t> in_flight_{0};
  Counter reload_failures_;
  std::atomic<std::uint64_t> last_reload_ns_{0};
  std::atomic<bool> reloaded_{false};
  MetricsSources sources_;
};

}  // namespace headgrader::server

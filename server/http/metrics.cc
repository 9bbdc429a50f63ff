#include "metrics.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "common/limits.h"

#ifndef HEADGRADER_VERSION
#define HEADGRADER_VERSION "unknown"
#endif

namespace headgrader::server {
namespace {

constexpr double kGradingSecondsBounds[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                            0.01,   0.025,   0.05,   0.1,   0.25,   0.5,
                                            1,      2.5,     5,      10};
constexpr double kCommitBatchBounds[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
static_assert(kCommitBatchBounds[std::size(kCommitBatchBounds) - 1] == limits::kMaxCommitBatch);

}  // namespace

std::span<const double> grading_seconds_bounds() { return kGradingSecondsBounds; }
std::span<const double> commit_batch_bounds() { return kCommitBatchBounds; }

Histogram::Histogram(std::span<const double> bounds, double units_per_shown)
    : bounds_(bounds.first(std::min(bounds.size(), kMaxBounds))),
      units_per_shown_(units_per_shown) {
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    unit_bounds_[i] = static_cast<std::uint64_t>(std::llround(bounds_[i] * units_per_shown));
  }
}

void Histogram::observe(std::uint64_t units) noexcept {
  std::size_t i = 0;
  while (i < bounds_.size() && units > unit_bounds_[i]) ++i;
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(units, std::memory_order_relaxed);
}

HistogramCounts Histogram::counts() const {
  HistogramCounts counts{bounds_, {}, 0};
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    counts.counts.push_back(buckets_[i].load(std::memory_order_relaxed));
  }
  counts.sum = static_cast<double>(sum_.load(std::memory_order_relaxed)) / units_per_shown_;
  return counts;
}

Metrics::Metrics(std::vector<std::string_view> routes)
    : routes_(std::move(routes)),
      requests_(std::make_unique<Counter[]>((routes_.size() + 1) * kStatuses)),
      grading_seconds_(kGradingSecondsBounds, 1e9) {}

Metrics::ProblemCounts& Metrics::problem_counts(std::string_view problem) {
  // Open addressing: a slot once claimed keeps its problem, so a lookup that meets a slot
  // with another problem goes on, and one that meets an empty slot knows the id is new.
  const std::size_t start = std::hash<std::string_view>{}(problem) % problems_.size();
  for (std::size_t n = 0; n < problems_.size(); ++n) {
    std::atomic<ProblemCounts*>& slot = problems_[(start + n) % problems_.size()];
    ProblemCounts* counts = slot.load(std::memory_order_acquire);
    if (counts == nullptr) {
      const std::lock_guard lock(claiming_);
      counts = slot.load(std::memory_order_acquire);
      if (counts == nullptr) {
        owned_.push_back(std::make_unique<ProblemCounts>());
        owned_.back()->problem = std::string(problem);
        counts = owned_.back().get();
        slot.store(counts, std::memory_order_release);
        return *counts;
      }
    }
    if (counts->problem == problem) return *counts;
  }
  return overflow_;
}

const Metrics::ProblemCounts* Metrics::find_problem(std::string_view problem) const {
  const std::size_t start = std::hash<std::string_view>{}(problem) % problems_.size();
  for (std::size_t n = 0; n < problems_.size(); ++n) {
    const ProblemCounts* counts =
        problems_[(start + n) % problems_.size()].load(std::memory_order_acquire);
    if (counts == nullptr) return nullptr;
    if (counts->problem == problem) return counts;
  }
  return nullptr;
}

void Metrics::count_grading(std::string_view problem, bool passed, std::chrono::nanoseconds took) {
  ProblemCounts& counts = problem_counts(problem);
  (passed ? counts.passed : counts.failed).add();
  grading_seconds_.observe(static_cast<std::uint64_t>(std::max<std::int64_t>(took.count(), 0)));
}

std::uint64_t Metrics::gradings(std::string_view problem, bool passed) const {
  const ProblemCounts* counts = problem == overflow_.problem ? &overflow_ : find_problem(problem);
  if (counts == nullptr) return 0;
  return (passed ? counts->passed : counts->failed).value();
}

void Metrics::count_request(std::size_t route, unsigned status) noexcept {
  if (route > routes_.size()) route = routes_.size();
  // Beast's statuses are 100..599; anything else would be ours to fix, counted as 500.
  const unsigned index = status >= kFirstStatus && status < kFirstStatus + kStatuses
                             ? status - kFirstStatus
                             : 500 - kFirstStatus;
  requests_[route * kStatuses + index].add();
}

void Metrics::count_reload(bool ok, std::chrono::nanoseconds took) noexcept {
  if (!ok) reload_failures_.add();
  last_reload_ns_.store(static_cast<std::uint64_t>(std::max<std::int64_t>(took.count(), 0)),
                        std::memory_order_relaxed);
  reloaded_.store(true, std::memory_order_relaxed);
}

void Metrics::write(MetricsText& text) const {
  text.family("headgrader_build_info", "gauge", "The running server's version (always 1).");
  const Label version[] = {{"version", HEADGRADER_VERSION}};
  text.sample("headgrader_build_info", version, 1);

  // Sorted by problem, so that a scrape reads the same from one time to the next.
  std::vector<const ProblemCounts*> problems;
  for (const std::atomic<ProblemCounts*>& slot : problems_) {
    if (const ProblemCounts* counts = slot.load(std::memory_order_acquire)) {
      problems.push_back(counts);
    }
  }
  if (overflow_.passed.value() + overflow_.failed.value() > 0) problems.push_back(&overflow_);
  std::sort(problems.begin(), problems.end(),
            [](const ProblemCounts* a, const ProblemCounts* b) { return a->problem < b->problem; });
  text.family("headgrader_gradings_total", "counter",
              "Gradings run by the grade route, by problem and result (passed or failed).");
  for (const ProblemCounts* counts : problems) {
    const Label passed[] = {{"problem", counts->problem}, {"result", "passed"}};
    const Label failed[] = {{"problem", counts->problem}, {"result", "failed"}};
    text.sample("headgrader_gradings_total", passed, static_cast<double>(counts->passed.value()));
    text.sample("headgrader_gradings_total", failed, static_cast<double>(counts->failed.value()));
  }
  text.histogram("headgrader_grading_duration_seconds",
                 "Time to grade one submission (the grading itself, without reading, queueing "
                 "or the record).",
                 grading_seconds_.counts());

  text.family("headgrader_http_requests_total", "counter",
              "Answers written, by the route table's pattern (\"other\" for no route) and status.");
  for (std::size_t route = 0; route <= routes_.size(); ++route) {
    for (unsigned index = 0; index < kStatuses; ++index) {
      const std::uint64_t n = requests_[route * kStatuses + index].value();
      if (n == 0) continue;
      const std::string code = std::to_string(kFirstStatus + index);
      const Label labels[] = {{"route", route < routes_.size() ? routes_[route] : "other"},
                              {"code", code}};
      text.sample("headgrader_http_requests_total", labels, static_cast<double>(n));
    }
  }
  text.single("headgrader_http_requests_in_flight", "gauge",
              "Requests read whole and not yet answered (a scrape counts itself).",
              static_cast<double>(std::max<std::int64_t>(in_flight_.load(), 0)));
  if (sources_.open_connections) {
    text.single("headgrader_open_connections", "gauge", "Client connections being served.",
                static_cast<double>(sources_.open_connections()));
  }
  if (sources_.long_work) {
    text.single("headgrader_long_work_queued", "gauge",
                "Long gradings and other long work (regrades, problem files to load) queued or "
                "running on the long-work threads.",
                static_cast<double>(sources_.long_work()));
  }
  text.single("headgrader_problem_reload_failures_total", "counter",
              "Reloads of the problems folder that failed (the problems before go on serving).",
              static_cast<double>(reload_failures_.value()));
  if (reloaded_.load(std::memory_order_relaxed)) {
    text.single("headgrader_problem_last_reload_duration_seconds", "gauge",
                "How long the last reload of the problems folder took, failed or not.",
                static_cast<double>(last_reload_ns_.load(std::memory_order_relaxed)) / 1e9);
  }
}

}  // namespace headgrader::server

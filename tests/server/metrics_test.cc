// The registry and the exposition text of GET /metrics (server/http/metrics.h,
// metrics_text.h): every count as the events it counts, histogram buckets against bounds
// worked out by hand, label values escaped as the Prometheus text format 0.0.4 says, and no
// count lost when threads count at once.
#include "metrics.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "metrics_text.h"

namespace headgrader::server {
namespace {

using namespace std::chrono_literals;

std::string exposition_of(const Metrics& metrics) {
  MetricsText text;
  metrics.write(text);
  return text.take();
}

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

TEST(MetricsText, LabelValuesEscapeBackslashQuoteAndNewline) {
  EXPECT_EQ(escape_label_value(R"(a\b"c)"
                               "\n"
                               "d"),
            R"(a\\b\"c\nd)");
  EXPECT_EQ(escape_label_value("plain-id"), "plain-id");
  MetricsText text;
  const Label labels[] = {{"route", "x\"y"}, {"code", "200"}};
  text.family("t_total", "counter", "A test.").sample("t_total", labels, 3);
  EXPECT_EQ(
      text.take(),
      "# HELP t_total A test.\n# TYPE t_total counter\nt_total{route=\"x\\\"y\",code=\"200\"} "
      "3\n");
}

TEST(MetricsText, NumbersAreWholeWhenWholeAndInfinityIsPlusInf) {
  EXPECT_EQ(metric_number(0), "0");
  EXPECT_EQ(metric_number(12345678901.0), "12345678901");
  EXPECT_EQ(metric_number(0.0005), "0.0005");
  EXPECT_EQ(metric_number(0.0001), "0.0001");
  EXPECT_EQ(metric_number(0.000235137), "0.000235137");
  EXPECT_EQ(metric_number(1e-9), "1e-09");
  EXPECT_EQ(metric_number(2.5), "2.5");
  EXPECT_EQ(metric_number(1.0 / 0.0), "+Inf");
}

TEST(MetricsText, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  const double bounds[] = {1, 2};
  MetricsText text;
  text.histogram("h", "H.", {bounds, {3, 0, 2}, 10.5});
  EXPECT_EQ(text.take(),
            "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"1\"} 3\nh_bucket{le=\"2\"} 3\n"
            "h_bucket{le=\"+Inf\"} 5\nh_sum 10.5\nh_count 5\n");
}

TEST(Histogram, AnObservationOnABoundCountsInThatBucket) {
  const double bounds[] = {0.001, 0.01};
  Histogram histogram(bounds, 1e9);
  histogram.observe(1'000'000);   // exactly 1 ms: le="0.001"
  histogram.observe(1'000'001);   // just above: le="0.01"
  histogram.observe(20'000'000);  // 20 ms: above every bound
  const HistogramCounts counts = histogram.counts();
  EXPECT_EQ(counts.counts, (std::vector<std::uint64_t>{1, 1, 1}));
  EXPECT_DOUBLE_EQ(counts.sum, 0.022000001);
}

TEST(Metrics, GradingsCountByProblemAndResultWithTheirDuration) {
  Metrics metrics({"/healthz", "/v1/problems/{id}/grade"});
  metrics.count_grading("consonant-anywhere", true, 300us);
  metrics.count_grading("consonant-anywhere", false, 2ms);
  metrics.count_grading("consonant-anywhere", false, 20s);
  metrics.count_grading("first-position", true, 0ns);
  EXPECT_EQ(metrics.gradings("consonant-anywhere", true), 1u);
  EXPECT_EQ(metrics.gradings("consonant-anywhere", false), 2u);
  EXPECT_EQ(metrics.gradings("first-position", true), 1u);
  EXPECT_EQ(metrics.gradings("never-graded", true), 0u);
  const std::string text = exposition_of(metrics);
  EXPECT_TRUE(has_line(
      text, R"(headgrader_gradings_total{problem="consonant-anywhere",result="passed"} 1)"))
      << text;
  EXPECT_TRUE(has_line(
      text, R"(headgrader_gradings_total{problem="consonant-anywhere",result="failed"} 2)"));
  EXPECT_TRUE(
      has_line(text, R"(headgrader_gradings_total{problem="first-position",result="failed"} 0)"));
  // 0 s and 300 µs are at most 0.0005 s; 2 ms at most 0.0025 s; 20 s above every bound.
  EXPECT_TRUE(has_line(text, R"(headgrader_grading_duration_seconds_bucket{le="0.00025"} 1)"));
  EXPECT_TRUE(has_line(text, R"(headgrader_grading_duration_seconds_bucket{le="0.0005"} 2)"));
  EXPECT_TRUE(has_line(text, R"(headgrader_grading_duration_seconds_bucket{le="0.0025"} 3)"));
  EXPECT_TRUE(has_line(text, R"(headgrader_grading_duration_seconds_bucket{le="10"} 3)"));
  EXPECT_TRUE(has_line(text, R"(headgrader_grading_duration_seconds_bucket{le="+Inf"} 4)"));
  EXPECT_TRUE(has_line(text, "headgrader_grading_duration_seconds_sum 20.0023"));
  EXPECT_TRUE(has_line(text, "headgrader_grading_duration_seconds_count 4"));
}

TEST(Metrics, RequestsCountByRoutePatternAndStatusWithOtherForNoRoute) {
  Metrics metrics({"/healthz", "/v1/problems/{id}/grade"});
  metrics.count_request(1, 200);
  metrics.count_request(1, 200);
  metrics.count_request(1, 400);
  metrics.count_request(metrics.other_route(), 404);
  const std::string text = exposition_of(metrics);
  EXPECT_TRUE(has_line(
      text, R"(headgrader_http_requests_total{route="/v1/problems/{id}/grade",code="200"} 2)"))
      << text;
  EXPECT_TRUE(has_line(
      text, R"(headgrader_http_requests_total{route="/v1/problems/{id}/grade",code="400"} 1)"));
  EXPECT_TRUE(has_line(text, R"(headgrader_http_requests_total{route="other",code="404"} 1)"));
  EXPECT_EQ(text.find(R"(route="/healthz")"), std::string::npos) << "no answers, no sample";
}

TEST(Metrics, InFlightAndReloadsAndTheSourcesReadWhenScraped) {
  Metrics metrics({});
  metrics.request_started();
  metrics.request_started();
  metrics.request_finished();
  metrics.count_reload(false, 1500ms);
  metrics.count_reload(true, 250ms);
  std::size_t connections = 7;
  metrics.set_sources({[&] { return connections; }, [] { return std::size_t{3}; }});
  std::string text = exposition_of(metrics);
  EXPECT_TRUE(has_line(text, "headgrader_http_requests_in_flight 1")) << text;
  EXPECT_TRUE(has_line(text, "headgrader_problem_reload_failures_total 1"));
  EXPECT_TRUE(has_line(text, "headgrader_problem_last_reload_duration_seconds 0.25"));
  EXPECT_TRUE(has_line(text, "headgrader_open_connections 7"));
  EXPECT_TRUE(has_line(text, "headgrader_long_work_queued 3"));
  connections = 2;
  text = exposition_of(metrics);
  EXPECT_TRUE(has_line(text, "headgrader_open_connections 2"));
  EXPECT_TRUE(text.starts_with("# HELP headgrader_build_info "));
  EXPECT_NE(text.find("headgrader_build_info{version=\""), std::string::npos);
}

TEST(Metrics, ProblemsBeyondTheTableCountAsOther) {
  Metrics metrics({});
  for (std::size_t i = 0; i < kMetricsProblemSlots + 5; ++i) {
    metrics.count_grading("p" + std::to_string(i), true, 1ms);
  }
  std::uint64_t kept = 0;
  for (std::size_t i = 0; i < kMetricsProblemSlots + 5; ++i) {
    kept += metrics.gradings("p" + std::to_string(i), true);
  }
  EXPECT_EQ(kept, kMetricsProblemSlots);
  EXPECT_EQ(metrics.gradings("_other", true), 5u);
  EXPECT_TRUE(has_line(exposition_of(metrics),
                       R"(headgrader_gradings_total{problem="_other",result="passed"} 5)"));
}

TEST(Metrics, ThreadsCountingAtOnceLoseNothing) {
  Metrics metrics({"/a"});
  constexpr int kEach = 50'000;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&metrics, t] {
      for (int i = 0; i < kEach; ++i) {
        // Each thread meets a problem new to the table at once with the others.
        metrics.count_grading(i % 2 == 0 ? "even" : "odd-" + std::to_string(i % 7), t % 2 == 0,
                              1us);
        metrics.count_request(0, 200);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::uint64_t total = metrics.gradings("even", true) + metrics.gradings("even", false);
  for (int r = 0; r < 7; ++r) {
    total += metrics.gradings("odd-" + std::to_string(r), true) +
             metrics.gradings("odd-" + std::to_string(r), false);
  }
  EXPECT_EQ(total, 4u * kEach);
  EXPECT_EQ(metrics.gradings("even", true), 2u * kEach / 2);
  const std::string text = exposition_of(metrics);
  EXPECT_TRUE(has_line(text, R"(headgrader_http_requests_total{route="/a",code="200"} 200000)"));
  EXPECT_TRUE(has_line(text, "headgrader_grading_duration_seconds_count 200000"));
}

}  // namespace
}  // namespace headgrader::server

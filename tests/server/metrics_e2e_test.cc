// GET /metrics against the real server (API.md §17): each metric moves as the events it
// counts (a passed and a failed grading, a request of no route, a reload that fails on a
// broken file written into the folder, a store error from a SQLite file replaced under the
// server, a passback marked failed in the outbox), the keyless listener of
// --metrics-address answers /metrics and nothing else, the main listener's /metrics refuses
// without a staff key, no sample names the student or the key used, and a real scrape
// passes Prometheus' own `promtool check metrics`.
#include <gtest/gtest.h>
#include <stdio.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <string>

#include "operations_support.h"
#include "server_harness.h"
#include "submission_store.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using namespace harness;
using testing::kGradePath;
using testing::kHandoutSolution;
using testing::kWrongKey;
using testing::with_student;
namespace fs = std::filesystem;

// The value of the sample whose name and labels are exactly `series`
// ("headgrader_passback{status=\"failed\"}"), or nullopt when the scrape has none.
std::optional<double> metric_value(const std::string& scrape, const std::string& series) {
  const std::string wanted = "\n" + series + " ";
  const std::size_t at = ("\n" + scrape).find(wanted);
  if (at == std::string::npos) return std::nullopt;
  return std::stod(scrape.substr(at + series.size() + 1));  // `at` is the line's in `scrape`
}

// Scrapes until `series` reaches `wanted` or 10 s pass (a reload happens on the server's own
// time); the last scrape.
std::string scrape_when(std::uint16_t port, const std::string& series, double wanted) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  for (;;) {
    std::string scrape = call(port, "GET", "/metrics").body();
    if (metric_value(scrape, series) == wanted || std::chrono::steady_clock::now() > deadline) {
      return scrape;
    }
    std::this_thread::sleep_for(50ms);
  }
}

// `promtool check metrics` on `scrape`: its exit status and what it said.
int promtool_check(const std::string& scrape, std::string& said) {
  const fs::path file = testing::private_temp_path("metrics-scrape.txt");
  std::ofstream(file) << scrape;
  FILE* pipe = ::popen(("promtool check metrics < " + file.string() + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) said.append(buffer, n);
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class MetricsE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::empty_folder("metrics-e2e");
    problems_ = dir_ / "problems";
    fs::create_directories(problems_);
    fs::copy_file(fs::path(testing::kProblemsDir) / "consonant-anywhere.json",
                  problems_ / "consonant-anywhere.json");
    db_ = dir_ / "h.db";
    staff_ = testing::add_key(dir_ / "keys.json", "ops-staff", "staff");
    lms_ = testing::add_key(dir_ / "keys.json", "canvas-prod", "lms");
    ASSERT_FALSE(staff_.empty());
    ASSERT_FALSE(lms_.empty());
    server_.emplace(std::vector<std::string>{
        "--port", "0", "--address", "127.0.0.1", "--threads", "2", "--problems", problems_.string(),
        "--keys", (dir_ / "keys.json").string(), "--store", "sqlite:" + db_.string(),
        "--metrics-address", "127.0.0.1:0"});
    const std::string first = server_->read_line();
    ASSERT_TRUE(first.starts_with("metrics on http://127.0.0.1:")) << first;
    metrics_port_ = static_cast<std::uint16_t>(std::stoi(first.substr(first.rfind(':') + 1)));
    port_ = server_->wait_listening();
    ASSERT_NE(port_, 0);
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(dir_);
  }

  fs::path dir_, problems_, db_;
  std::string staff_, lms_;
  std::optional<ServerProcess> server_;
  std::uint16_t port_ = 0, metrics_port_ = 0;
};

TEST_F(MetricsE2E, EachMetricMovesAsTheEventsItCounts) {
  const std::string student = "ada-lovelace-1815";
  std::string scrape = call(metrics_port_, "GET", "/metrics").body();
  EXPECT_EQ(metric_value(scrape, "headgrader_problems_loaded"), 1.0) << scrape;
  EXPECT_EQ(metric_value(scrape, "headgrader_store_errors_total"), 0.0);
  EXPECT_EQ(metric_value(scrape, "headgrader_problem_reload_failures_total"), 0.0);
  EXPECT_EQ(metric_value(scrape, "headgrader_grading_duration_seconds_count"), 0.0);
  EXPECT_EQ(metric_value(scrape, "headgrader_store_commit_batch_size_count"), 0.0);
  EXPECT_EQ(metric_value(scrape, R"(headgrader_passback{status="failed"})"), 0.0);

  ASSERT_EQ(
      call(port_, "POST", kGradePath, lms_, with_student(kHandoutSolution, student)).result_int(),
      200u);
  ASSERT_EQ(call(port_, "POST", kGradePath, lms_, with_student(kWrongKey, student)).result_int(),
            200u);
  EXPECT_EQ(call(port_, "GET", "/no/such/path").result_int(), 404u);
  scrape = call(metrics_port_, "GET", "/metrics").body();
  const std::string grade = R"(route="/v1/problems/{id}/grade")";
  EXPECT_EQ(
      metric_value(scrape,
                   R"(headgrader_gradings_total{problem="consonant-anywhere",result="passed"})"),
      1.0)
      << scrape;
  EXPECT_EQ(
      metric_value(scrape,
                   R"(headgrader_gradings_total{problem="consonant-anywhere",result="failed"})"),
      1.0);
  EXPECT_EQ(metric_value(scrape, "headgrader_grading_duration_seconds_count"), 2.0);
  EXPECT_EQ(metric_value(scrape, "headgrader_http_requests_total{" + grade + R"(,code="200"})"),
            2.0);
  EXPECT_EQ(metric_value(scrape, R"(headgrader_http_requests_total{route="other",code="404"})"),
            1.0);
  // Each grading was committed on its own (one at a time): two batches of one record.
  EXPECT_EQ(metric_value(scrape, R"(headgrader_store_commit_batch_size_bucket{le="1"})"), 2.0);
  EXPECT_EQ(metric_value(scrape, "headgrader_store_commit_batch_size_sum"), 2.0);
  // Labels hold patterns, ids and statuses only: never the student, a key or a raw path.
  for (const std::string& secret :
       {student, lms_, staff_, std::string("canvas-prod"), std::string("/no/such/path")}) {
    EXPECT_EQ(scrape.find(secret), std::string::npos) << secret;
  }

  // A passback that failed for good, marked in the server's own store by the outbox's API.
  {
    auto opened = store::open_store("sqlite:" + db_.string());
    ASSERT_TRUE(opened) << opened.error().message;
    store::SubmissionRecord record;
    record.time = 1'796'000'000'000;
    record.id = store::new_submission_id(record.time);
    record.problem = "consonant-anywhere";
    record.problem_sha256 = std::string(64, 'a');
    record.body = record.answer = "{}";
    record.tests_total = 1;
    std::promise<Result<store::CommitOutcome>> committed;
    (*opened)->commit(
        record,
        store::PassbackRequest{"https://lms", "client", "https://lms/li/1", R"({"scoreGiven":0})",
                               nullptr},
        [&](Result<store::CommitOutcome> outcome) { committed.set_value(std::move(outcome)); });
    ASSERT_TRUE(committed.get_future().get());
    auto pending = (*opened)->list_passbacks(store::PassbackStatus::kPending, 10);
    ASSERT_TRUE(pending && pending->size() == 1u);
    ASSERT_TRUE((*opened)->mark_passback_failed(pending->front().id, 400, "refused"));
    (*opened)->close();
  }
  scrape = call(metrics_port_, "GET", "/metrics").body();
  EXPECT_EQ(metric_value(scrape, R"(headgrader_passback{status="failed"})"), 1.0) << scrape;
  EXPECT_EQ(metric_value(scrape, R"(headgrader_passback{status="pending"})"), 0.0);

  // A broken problem file in the folder: the reload fails, the problem before goes on.
  std::ofstream(problems_ / "broken.json") << "{ not json";
  scrape = scrape_when(metrics_port_, "headgrader_problem_reload_failures_total", 1);
  EXPECT_GE(metric_value(scrape, "headgrader_problem_reload_failures_total").value_or(0), 1.0)
      << scrape;
  EXPECT_TRUE(metric_value(scrape, "headgrader_problem_last_reload_duration_seconds"));
  EXPECT_EQ(metric_value(scrape, "headgrader_problems_loaded"), 1.0);

  // The SQLite file replaced under the server: the grading cannot be kept (503), an error.
  fs::rename(db_, dir_ / "old.db");
  fs::copy_file(dir_ / "old.db", db_);
  EXPECT_EQ(call(port_, "POST", kGradePath, lms_, kHandoutSolution).result_int(), 503u);
  scrape = call(metrics_port_, "GET", "/metrics").body();
  EXPECT_GE(metric_value(scrape, "headgrader_store_errors_total").value_or(0), 1.0) << scrape;
  EXPECT_EQ(metric_value(scrape, "headgrader_http_requests_total{" + grade + R"(,code="503"})"),
            1.0);

  std::string said;
  EXPECT_EQ(promtool_check(scrape, said), 0)
      << "promtool (Debian's prometheus, scripts/install-deps.sh test) said: " << said;
}

TEST_F(MetricsE2E, TheMetricsListenerIsKeylessAndAnswersOnlyMetrics) {
  const HttpResponse scrape = call(metrics_port_, "GET", "/metrics");
  EXPECT_EQ(scrape.result_int(), 200u);
  EXPECT_EQ(scrape[http::field::content_type], "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(scrape.body().find("\nheadgrader_build_info{version=\""), std::string::npos);
  const HttpResponse head = call(metrics_port_, "HEAD", "/metrics");
  EXPECT_EQ(head.result_int(), 200u);
  EXPECT_TRUE(head.body().empty());
  EXPECT_EQ(call(metrics_port_, "GET", "/healthz").result_int(), 404u);
  EXPECT_EQ(call(metrics_port_, "POST", kGradePath, "", kHandoutSolution).result_int(), 404u);
  EXPECT_EQ(call(metrics_port_, "GET", "/v1/problems", staff_).result_int(), 404u);
  const HttpResponse post = call(metrics_port_, "POST", "/metrics", "", "{}");
  EXPECT_EQ(post.result_int(), 405u);
  EXPECT_EQ(post[http::field::allow], "GET, HEAD");
}

TEST_F(MetricsE2E, TheMainListenersMetricsNeedAStaffKey) {
  const HttpResponse none = call(port_, "GET", "/metrics");
  EXPECT_EQ(none.result_int(), 401u);
  EXPECT_EQ(code_of(none), "unauthorized");
  const HttpResponse wrong = call(port_, "GET", "/metrics", "not-a-key");
  EXPECT_EQ(wrong.result_int(), 401u);
  const HttpResponse lms = call(port_, "GET", "/metrics", lms_);
  EXPECT_EQ(lms.result_int(), 403u);
  EXPECT_EQ(code_of(lms), "forbidden");
  const HttpResponse staff = call(port_, "GET", "/metrics", staff_);
  EXPECT_EQ(staff.result_int(), 200u);
  EXPECT_EQ(staff[http::field::content_type], "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_TRUE(metric_value(staff.body(), "headgrader_open_connections"));
  // The scrape itself is counted once answered; the refusals before it already are.
  EXPECT_EQ(
      metric_value(staff.body(), R"(headgrader_http_requests_total{route="/metrics",code="401"})"),
      2.0)
      << staff.body();
}

TEST(MetricsWithoutKeys, TheMainListenersMetricsAre403StaffDisabled) {
  ServerProcess server(
      {"--port", "0", "--address", "127.0.0.1", "--problems", testing::kProblemsDir});
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);
  const HttpResponse answer = call(port, "GET", "/metrics");
  EXPECT_EQ(answer.result_int(), 403u);
  EXPECT_EQ(code_of(answer), "staff_disabled");
}

}  // namespace
}  // namespace headgrader::server

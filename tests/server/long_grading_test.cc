// Gradings that take long (a problem graded string by string over many strings) run off the
// threads that read and write: /healthz and other connections are answered meanwhile; on
// SIGTERM the grading in flight answers within the grace, or is cut off at its end, and the
// server exits 0 either way.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>

#include "headgrader/grade_request.h"
#include "headgrader/grading_cost.h"
#include "headgrader/limits.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "part1_router.h"
#include "router.h"
#include "server_harness.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace harness;
using testing::long_examples_problem;
using testing::write_problem;

// first-position with every string up to `length` tested, judged prefix by prefix
// (testing::prefix_by_prefix_problem).
Json first_position_up_to(int length, const std::string& id) {
  return testing::prefix_by_prefix_problem(id, length);
}

// consonant-anywhere likewise: graded over count states, in microseconds at any length.
Json consonant_anywhere_up_to(int length, const std::string& id) {
  std::ifstream in(HEADGRADER_SOURCE_DIR "/problems/consonant-anywhere.json");
  Json problem = Json::parse(in);
  problem["id"] = id;
  problem["strings"] = {{"max_length", length}, {"exhaustive_length", length}};
  problem["reference"]["W_k"] = Json::array({Json::array({0, 8})});
  return problem;
}

// The bundled reference with the sharper W_k: it passes at every length used here.
constexpr const char* kSharpFirstPosition =
    R"({"W_q": [[1, 1, 0]], "W_k": [[0, 0, 8]], "W_V": [[0, 1, 0], [0, 0, 0]]})";

Request grade_request(const std::string& id) {
  Request request{http::verb::post, "/v1/problems/" + id + "/grade", 11};
  request.set(http::field::content_type, "application/json");
  request.body() = kSharpFirstPosition;
  request.prepare_payload();
  return request;
}

TEST(LongGradings, OnlyAGradingStringByStringOverTheCostLimitCountsAsLong) {
  const fs::path dir = testing::private_temp_path("long-grading-router");
  fs::create_directories(dir);
  write_problem(dir, first_position_up_to(11, "position-11"));
  write_problem(dir, first_position_up_to(12, "position-12"));
  write_problem(dir, consonant_anywhere_up_to(20, "counts-20"));  // 2 097 150 strings
  auto loaded = ProblemSet::load(dir);
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    for (const Defect& defect : *defects) ADD_FAILURE() << defect.to_string();
    return;
  }
  const ProblemSet& problems = std::get<ProblemSet>(loaded);
  // Every prefix of length L costs L rows of n_q + n_v = 64 + 2 numbers (grading_cost.h):
  // sum of 2^L · L over L = 1..11 is 10 · 2^12 + 2, and over 1..12 it is 11 · 2^13 + 2.
  const auto cost_up_to = [](std::uint64_t n) { return ((n - 1) * (1u << (n + 1)) + 2) * 66; };
  EXPECT_EQ(grading_cost(*problems.find("position-11")), cost_up_to(11));
  EXPECT_EQ(grading_cost(*problems.find("position-12")), cost_up_to(12));
  static_assert(limits::kLongGradingCost >= (10u * (1u << 12) + 2) * 66 &&
                limits::kLongGradingCost < (11u * (1u << 13) + 2) * 66);
  EXPECT_EQ(grading_cost(*problems.find("counts-20")), 0u);
  const testing::Part1Router part1(problems);
  const Router& router = part1.router();

  // Long: checked here, graded later (Routed::rest), with the same answer.
  const Request long_one = grade_request("position-12");
  Routed deferred = router.route_deferring(long_one);
  ASSERT_TRUE(deferred.rest);
  EXPECT_EQ(deferred.rest(long_one).response.body(), router.route(long_one).response.body());
  const auto answered_here = [&](const Request& request, http::status status) {
    const Routed routed = router.route_deferring(request);
    EXPECT_FALSE(routed.rest) << request.target();
    EXPECT_EQ(routed.response.result(), status) << request.target();
  };
  answered_here(grade_request("position-11"), http::status::ok);
  Request counts = grade_request("counts-20");  // over count states
  counts.body() = R"({"W_q": [[1, 1]], "W_k": [[0, 8]], "W_V": [[1, 0], [0, 1]]})";
  counts.prepare_payload();
  answered_here(counts, http::status::ok);
  answered_here(grade_request("no-such-problem"), http::status::not_found);
  Request get = grade_request("position-12");
  get.method(http::verb::get);
  answered_here(get, http::status::method_not_allowed);
  Request problem = grade_request("position-12");
  problem.method(http::verb::get);
  problem.target("/v1/problems/position-12");
  answered_here(problem, http::status::ok);
  // A body that does not parse is answered at once, however long the problem's gradings.
  Request bad = grade_request("position-12");
  bad.body() = R"({"W_q": [[1, 1]]})";
  bad.prepare_payload();
  answered_here(bad, http::status::bad_request);
}

// A head of `n_q` zero query and key rows and a zero W_V: its output is 0 everywhere, so every
// position of every tested string fails.
std::string zero_head(int n_q, int max_failures) {
  Json rows = Json::array();
  for (int i = 0; i < n_q; ++i) rows.push_back(Json::array({0, 0}));
  return Json{{"W_q", rows},
              {"W_k", rows},
              {"W_V", Json::array({{0, 0}, {0, 0}})},
              {"max_failures", max_failures}}
      .dump();
}

Request post_grade(const std::string& id, const std::string& body) {
  Request request{http::verb::post, "/v1/problems/" + id + "/grade", 11};
  request.set(http::field::content_type, "application/json");
  request.body() = body;
  request.prepare_payload();
  return request;
}

// Every number (or null, for a masked score) under `value`.
std::uint64_t numbers_in(const Json& value) {
  if (value.is_number() || value.is_null()) return 1;
  std::uint64_t n = 0;
  if (value.is_array() || value.is_object()) {
    for (const Json& item : value) n += numbers_in(item);
  }
  return n;
}

TEST(LongGradings, AnswerCostCountsTheNumbersOfAnAnswerWhoseEveryPositionFails) {
  auto loaded = load_problem_text(long_examples_problem("wide-20", 20).dump(), "wide-20.json");
  ASSERT_TRUE(std::holds_alternative<Problem>(loaded));
  const Problem& problem = std::get<Problem>(loaded);
  for (const int max_failures : {0, 1, 3, 100}) {
    for (const int n_q : {1, 4}) {
      const std::string body = zero_head(n_q, max_failures);
      Result<Submission> submission = parse_submission(problem, body);
      ASSERT_TRUE(submission) << submission.error().message;
      const Graded graded = grade_submission(problem, *submission);
      const Json answer = Json::parse(graded.answer);
      ASSERT_EQ(answer["failures"].size(), static_cast<std::size_t>(max_failures));
      // Counted in the answer itself: what the failures and examples hold.
      EXPECT_EQ(answer_cost(problem, *submission),
                numbers_in(answer["failures"]) + numbers_in(answer["examples"]))
          << "max_failures " << max_failures << ", n_q " << n_q;
    }
  }
}

TEST(LongGradings, AnAnswerOverTheNumbersLimitIsFinishedElsewhereWithTheSameBytes) {
  const fs::path dir = testing::private_temp_path("long-answer-router");
  fs::create_directories(dir);
  write_problem(dir, long_examples_problem("wide-20", 20));
  auto loaded = ProblemSet::load(dir);
  ASSERT_TRUE(std::holds_alternative<ProblemSet>(loaded));
  const testing::Part1Router part1(std::get<ProblemSet>(loaded));
  const Router& router = part1.router();
  const Problem& problem = *std::get<ProblemSet>(loaded).find("wide-20");

  // 100 failures of length 20: about 146 000 numbers, so the rest waits for another thread.
  const Request large = post_grade("wide-20", zero_head(1, 100));
  ASSERT_GT(answer_cost(problem, *parse_submission(problem, large.body())),
            limits::kLongAnswerNumbers);
  Routed deferred = router.route_deferring(large);
  ASSERT_TRUE(deferred.rest);
  EXPECT_TRUE(deferred.response.body().empty());
  EXPECT_EQ(deferred.problem, "wide-20");
  const Routed finished = deferred.rest(large);
  EXPECT_EQ(finished.response.result(), http::status::ok);
  EXPECT_EQ(Json::parse(finished.response.body())["failures"].size(), 100u);
  EXPECT_EQ(finished.passed, false);
  EXPECT_EQ(finished.response.body(), router.route(large).response.body());

  // Three failures: answered at once.
  const Routed small = router.route_deferring(post_grade("wide-20", zero_head(1, 3)));
  EXPECT_FALSE(small.rest);
  EXPECT_EQ(small.response.result(), http::status::ok);
  // A body that does not parse is answered at once, whatever its max_failures.
  const Routed bad = router.route_deferring(
      post_grade("wide-20", R"({"W_q": [[0, 0, 0]], "W_k": [[0, 0]], "max_failures": 100})"));
  EXPECT_FALSE(bad.rest);
  EXPECT_EQ(bad.response.result(), http::status::bad_request);
}

TEST(LongGradings, TheBundledProblemsAnswerOnTheReadingThreadUpToEightQueryRows) {
  auto loaded = ProblemSet::load(HEADGRADER_SOURCE_DIR "/problems");
  ASSERT_TRUE(std::holds_alternative<ProblemSet>(loaded));
  for (const auto& problem : std::get<ProblemSet>(loaded).problems()) {
    for (const int n_q : {1, 8, 16}) {
      Json rows = Json::array();
      for (int i = 0; i < n_q; ++i) rows.push_back(Json(std::vector<int>(problem->n_e, 0)));
      const Json values(std::vector<Json>(problem->n_v, Json(std::vector<int>(problem->n_e, 0))));
      Result<Submission> submission = parse_submission(
          *problem,
          Json{{"W_q", rows}, {"W_k", rows}, {"W_V", values}, {"max_failures", 100}}.dump());
      ASSERT_TRUE(submission) << submission.error().message;
      if (n_q <= 8) {
        EXPECT_LE(answer_cost(*problem, *submission), limits::kLongAnswerNumbers) << problem->id;
      } else {
        EXPECT_GT(answer_cost(*problem, *submission), limits::kLongAnswerNumbers) << problem->id;
      }
    }
  }
}

// A server with one thread for reading and writing, on problems whose grading takes about
// half a second (position-23: 16 777 214 strings, each position attending to the ones
// before; at length 20 the prefix walk of issue 23 made a grading about 80 ms, too close to
// the 50 ms that stopping takes with the 20 ms grace below) or a thirtieth of that
// (position-18: the one that must finish within SIGTERM's 5 s grace, also under sanitizers).
class LongGradingServer : public ::testing::Test {
 protected:
  void SetUp() override { start_server({}); }

  void start_server(const std::vector<std::string>& extra_args) {
    dir_ = testing::private_temp_path("long-grading-server");
    fs::create_directories(dir_);
    write_problem(dir_, first_position_up_to(23, "position-23"));
    write_problem(dir_, first_position_up_to(18, "position-18"));
    std::vector<std::string> args{"--problems", dir_.string(), "--address", "127.0.0.1",
                                  "--port",     "0",           "--threads", "1"};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    server_.emplace(args);
    // Loading proves the reference passes: a grading's time, longer under sanitizers.
    const std::string line = server_->read_line(120s);
    ASSERT_TRUE(line.starts_with("listening on http://")) << line << server_->stderr_text();
    port_ = static_cast<std::uint16_t>(std::stoi(line.substr(line.rfind(':') + 1)));
  }

  // Sends the grading and waits until the server has taken it up, without guessing how long
  // that takes on this machine: the one thread reads the grading, queued ahead of another
  // connection's accept and request, before it answers that connection's /healthz.
  // Call it through ASSERT_NO_FATAL_FAILURE: a test must not go on with no grading running.
  void start_grading(Client& client, const std::string& id = "position-23") {
    client.write(http::verb::post, "/v1/problems/" + id + "/grade", kSharpFirstPosition);
    Client other(port_);
    ASSERT_EQ(other.send(http::verb::get, "/healthz").result(), http::status::ok);
    ASSERT_FALSE(client.readable()) << "the grading was answered at once: it is not long";
  }

  // Every string up to `length` over the two groups: 2 + 4 + … + 2^length.
  static void expect_passing_grade(const HttpResponse& response, int length = 23) {
    ASSERT_EQ(response.result(), http::status::ok) << response.body();
    const Json answer = Json::parse(response.body());
    EXPECT_EQ(answer["passed"], true);
    EXPECT_EQ(answer["tests"]["total"], (1u << (length + 1)) - 2);
  }

  fs::path dir_;
  std::optional<ServerProcess> server_;
  std::uint16_t port_ = 0;
};

TEST_F(LongGradingServer, HealthAndOtherRoutesAreAnsweredWhileAGradingRuns) {
  Client grading(port_);
  ASSERT_NO_FATAL_FAILURE(start_grading(grading));
  Client other(port_);
  EXPECT_EQ(other.send(http::verb::get, "/healthz").result(), http::status::ok);
  EXPECT_EQ(other.send(http::verb::get, "/v1/problems").result(), http::status::ok);
  // Both answered on the one thread while the grading was still running beside them.
  EXPECT_FALSE(grading.readable());
  expect_passing_grade(grading.read());
  // The connection goes on as before.
  EXPECT_EQ(grading.send(http::verb::get, "/healthz").result(), http::status::ok);
}

TEST_F(LongGradingServer, AGradingInFlightAtSigtermIsAnsweredAndTheServerExitsZero) {
  Client grading(port_);
  ASSERT_NO_FATAL_FAILURE(start_grading(grading, "position-18"));
  server_->signal(SIGTERM);
  const HttpResponse response = grading.read();
  expect_passing_grade(response, 18);
  EXPECT_FALSE(response.keep_alive());
  const ExitStatus status = server_->wait();
  EXPECT_TRUE(status.exited);
  EXPECT_EQ(status.code, 0);
}

// With the grace cut to 0.02 s, a grading still running at its end is not waited for: the
// server exits 0 at once, with its log written, and the grading's client gets no answer.
// The grace is far shorter than half a grading on any machine, so the two outcomes stay
// apart by the test's measure even where a grading takes only a few tenths of a second.
TEST_F(LongGradingServer, AGradingStillRunningAfterTheGraceIsCutOffAndTheServerExitsZero) {
  server_.reset();
  start_server({"--shutdown-grace-ms", "20"});
  Client grading(port_);
  const auto started = std::chrono::steady_clock::now();
  expect_passing_grade(
      grading.send(http::verb::post, "/v1/problems/position-23/grade", kSharpFirstPosition));
  const auto one_grading = std::chrono::steady_clock::now() - started;

  ASSERT_NO_FATAL_FAILURE(start_grading(grading));
  const auto signalled = std::chrono::steady_clock::now();
  server_->signal(SIGTERM);
  const ExitStatus status = server_->wait();
  const auto stopping = std::chrono::steady_clock::now() - signalled;
  EXPECT_TRUE(status.exited);
  EXPECT_EQ(status.code, 0);
  // Waiting for the grading would take nearly all of one_grading: it had only just started.
  EXPECT_LT(stopping, one_grading / 2) << "the server waited for the grading";
  EXPECT_TRUE(grading.closed_by_server());
  // The first grading's line was written out before the exit.
  EXPECT_NE(server_->stderr_text().find(R"("path":"/v1/problems/position-23/grade","status":200)"),
            std::string::npos)
      << server_->stderr_text();
}

}  // namespace
}  // namespace headgrader::server

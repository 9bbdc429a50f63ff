// Validating and solving a draft problem on the real server (API.md §9): defects or the
// tested strings, an obstacle named with its kind, input and position, a warning when the
// tests cannot tell a mistake from the solution, a head found for a draft, nothing written;
// and long validations on the long-grading threads, which leave health answered and give
// their place back before answering.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "course_staff_support.h"
#include "headgrader/limits.h"
#include "headgrader/report.h"
#include "server_harness.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::kHandoutSolution;

using namespace std::chrono_literals;
using namespace harness;
using course_staff_testing::cli;
using course_staff_testing::KeyedServer;
using course_staff_testing::read_file;
using course_staff_testing::Workspace;
namespace fs = std::filesystem;

TEST_F(KeyedServer, ValidateAnswersDefectsOrTheTestedStringsAndWritesNothing) {
  const std::string text = read_file(w_.problems() / "first-position.json");
  const HttpResponse valid = call(port_, "POST", "/v1/problems/validate", staff_, text);
  ASSERT_EQ(valid.result_int(), 200);
  const Json answer = Json::parse(valid.body());
  EXPECT_EQ(answer["valid"], true);
  // The handout's first-position problem: every string of length 1..8 over its two groups
  // (2 + 4 + … + 256 = 510), plus what its file adds (checked against the CLI's count).
  EXPECT_EQ(
      answer["tested_strings"].dump() + " tested strings)",
      cli("validate " + (w_.problems() / "first-position.json").string())
          .substr(cli("validate " + (w_.problems() / "first-position.json").string()).find('(') +
                  1));
  EXPECT_EQ(answer["warnings"], Json::array());
  const HttpResponse invalid =
      call(port_, "POST", "/v1/problems/validate", staff_, R"({"id": "x", "title": 3})");
  ASSERT_EQ(invalid.result_int(), 200);
  EXPECT_EQ(Json::parse(invalid.body())["valid"], false);
  EXPECT_FALSE(fs::exists(w_.problems() / "x.json"));
  EXPECT_EQ(call(port_, "GET", "/v1/problems/validate").result_int(), 405);
}

// An obstacle (API.md §14) is a defect of expected that also names its kind, input and
// position: W_V given as the identity on the vowel and consonant features, and [1, 1] asked
// once both have occurred, half a unit from the nearest mixture of [1, 0] and [0, 1].
TEST_F(KeyedServer, ValidateNamesAnObstacleWithItsKindInputAndPosition) {
  Json j = Json::parse(read_file(w_.problems() / "consonant-anywhere.json"));
  j["submit"] = {"W_q", "W_k"};
  j["given"] = {{"W_V", {{1, 0}, {0, 1}}}};
  j["reference"].erase("W_V");
  j["expected"] = "any(vowel) and any(consonant) ? [1, 1] : [is(vowel), is(consonant)]";
  j["tolerance"] = 0.4;
  j["strings"] = {{"max_length", 3}};
  const HttpResponse answer = call(port_, "POST", "/v1/problems/validate", staff_, j.dump());
  ASSERT_EQ(answer.result_int(), 200);
  const Json body = Json::parse(answer.body());
  EXPECT_EQ(body["valid"], false);
  Json obstacle;
  for (const Json& defect : body["defects"]) {
    if (defect.contains("kind") && obstacle.is_null()) obstacle = defect;  // the shortest
  }
  ASSERT_FALSE(obstacle.is_null()) << body.dump();
  EXPECT_EQ(obstacle["field"], "expected");
  EXPECT_EQ(obstacle["kind"], "outside_values");
  EXPECT_EQ(obstacle["input"], "ab");
  EXPECT_EQ(obstacle["position"], 2);
}

// The staff route lints as `headgrader validate --lint` does (API.md §13): the named
// mistakes applied to the reference, and the reference's margin.
TEST_F(KeyedServer, ValidateWarnsWhenTheTestsCannotTellAMistakeFromTheSolution) {
  Json lax = Json::parse(read_file(w_.problems() / "consonant-anywhere.json"));
  lax["id"] = "lax";
  lax["tolerance"] = 0.3;  // and strings of length 2: half the handout's key still passes
  lax["strings"] = {{"max_length", 2}, {"exhaustive_length", 2}, {"examples", Json::array()}};
  const HttpResponse linted = call(port_, "POST", "/v1/problems/validate", staff_, lax.dump());
  ASSERT_EQ(linted.result_int(), 200);
  const Json answer = Json::parse(linted.body());
  EXPECT_EQ(answer["valid"], true);
  ASSERT_EQ(answer["warnings"].size(), 1u) << answer.dump();
  EXPECT_EQ(answer["warnings"][0]["field"], "strings");
  const std::string message = answer["warnings"][0]["message"];
  EXPECT_NE(message.find("too-soft key (W_k × 0.5)"), std::string::npos) << message;
  EXPECT_NE(message.find("(key_too_soft)"), std::string::npos) << message;
  // API.md §14: each mistake that applies, caught or not, with the shortest failing string
  // (hand-worked in tests/engine/diagnosis_test.cc, MistakesCaught).
  EXPECT_EQ(answer["mistakes_caught"], Json::parse(R"([
      {"mistake": "uniform_attention", "caught": true, "by": "ab"},
      {"mistake": "query_key_swapped", "caught": true, "by": "ab"},
      {"mistake": "attends_to_wrong_class", "caught": true, "by": "ab"},
      {"mistake": "key_too_soft", "caught": false, "by": null},
      {"mistake": "value_rows_swapped", "caught": true, "by": "a"},
      {"mistake": "value_wrong", "caught": true, "by": "b"}])"));

  // The handout's problem: no warning, and the margin of its solution, whose worst position
  // is the b of "aaaaaaab": weight e^5 on it against 7 vowels, an error of 7 / (7 + e^5).
  const HttpResponse bundled = call(port_, "POST", "/v1/problems/validate", staff_,
                                    read_file(w_.problems() / "consonant-anywhere.json"));
  const Json margin = Json::parse(bundled.body())["reference_margin"];
  EXPECT_EQ(Json::parse(bundled.body())["warnings"], Json::array());
  EXPECT_NEAR(margin["worst_error"].get<double>(), 7 / (7 + std::exp(5.0)), 1e-12);
  EXPECT_EQ(margin["tolerance"], 0.1);
  EXPECT_EQ(margin["score_gap"], 5);
}

// The staff page's preview (API.md §16): a draft whose only defect is its missing reference
// still comes back as the problem a student would be served, field for field the answer of
// GET /v1/problems/{id} for the same file once it has its reference.
TEST_F(KeyedServer, ValidateOfADraftWithoutItsReferenceGivesTheProblemAsServed) {
  Json draft = Json::parse(read_file(w_.problems() / "consonant-anywhere.json"));
  draft.erase("reference");
  const HttpResponse answer = call(port_, "POST", "/v1/problems/validate", staff_, draft.dump());
  ASSERT_EQ(answer.result_int(), 200);
  const Json body = Json::parse(answer.body());
  EXPECT_EQ(body["valid"], false);
  ASSERT_EQ(body["defects"].size(), 1u) << body.dump();
  EXPECT_EQ(body["defects"][0]["field"], "reference");
  EXPECT_EQ(body["problem"],
            Json::parse(call(port_, "GET", "/v1/problems/consonant-anywhere").body()));
  // A draft with other defects has nothing to preview.
  draft["title"] = 3;
  EXPECT_FALSE(
      Json::parse(call(port_, "POST", "/v1/problems/validate", staff_, draft.dump()).body())
          .contains("problem"));
}

// POST /v1/problems/solve runs `headgrader solve` on a draft for the staff's page: the head it
// finds passes the real grader (graded here through the served problem, not taken from the
// search), "file" is the draft with that head as its reference and loads, and nothing is
// written to the folder.
TEST_F(KeyedServer, SolveFindsAHeadForADraftThatTheGraderPassesAndWritesNothing) {
  Json draft = Json::parse(read_file(w_.problems() / "consonant-anywhere.json"));
  draft.erase("reference");
  draft["id"] = "drafted";
  const HttpResponse answer =
      call(port_, "POST", "/v1/problems/solve?seconds=30", staff_, draft.dump(2));
  ASSERT_EQ(answer.result_int(), 200) << answer.body();
  const Json body = Json::parse(answer.body());
  ASSERT_EQ(body["found"], true) << body.dump();
  Json submission = body["head"];
  const HttpResponse graded =
      call(port_, "POST", "/v1/problems/consonant-anywhere/grade", staff_, submission.dump());
  ASSERT_EQ(graded.result_int(), 200);
  EXPECT_EQ(Json::parse(graded.body())["passed"], true);
  const std::string file = body["file"];
  EXPECT_EQ(Json::parse(file)["reference"], body["head"]);
  // Every other byte as sent: the draft's own indentation is kept.
  EXPECT_EQ(file.substr(0, 20), draft.dump(2).substr(0, 20));
  const Json checked =
      Json::parse(call(port_, "POST", "/v1/problems/validate", staff_, file).body());
  EXPECT_EQ(checked["valid"], true) << checked.dump();
  EXPECT_FALSE(fs::exists(w_.problems() / "drafted.json"));
  EXPECT_EQ(call(port_, "GET", "/v1/problems/drafted").result_int(), 404);
}

TEST_F(KeyedServer, SolveRefusesABadBudgetADraftWithDefectsAndAnyKeyButStaff) {
  Json draft = Json::parse(read_file(w_.problems() / "consonant-anywhere.json"));
  draft.erase("reference");
  for (const std::string& seconds :
       std::vector<std::string>{"0", "x", std::to_string(limits::kSolveRouteMaxSeconds + 1)}) {
    const HttpResponse bad =
        call(port_, "POST", "/v1/problems/solve?seconds=" + seconds, staff_, draft.dump());
    EXPECT_EQ(bad.result_int(), 400) << seconds;
    EXPECT_EQ(Json::parse(bad.body())["error"]["field"], "seconds");
  }
  EXPECT_EQ(Json::parse(call(port_, "POST", "/v1/problems/solve?n=2", staff_, draft.dump())
                            .body())["error"]["field"],
            "n");
  draft["expected"] = "any(consonant ? [0, 1] : [1, 0]";
  const HttpResponse broken = call(port_, "POST", "/v1/problems/solve", staff_, draft.dump());
  EXPECT_EQ(broken.result_int(), 422);
  const Json defects = Json::parse(broken.body())["defects"];
  ASSERT_FALSE(defects.empty());
  EXPECT_EQ(defects[0]["field"], "expected");
  // The caret of `expected` (API.md §3) is in the message, under the place it names.
  EXPECT_NE(defects[0]["message"].get<std::string>().find('^'), std::string::npos);
  EXPECT_EQ(call(port_, "POST", "/v1/problems/solve", lms_, draft.dump()).result_int(), 403);
  EXPECT_EQ(call(port_, "POST", "/v1/problems/solve", "", draft.dump()).result_int(), 401);
  EXPECT_EQ(call(port_, "GET", "/v1/problems/solve", staff_).result_int(), 405);
}

// The server's threads whose nice value is `nice` now (Linux keeps one per thread: field 19
// of /proc/PID/task/TID/stat, counted after the command's closing parenthesis).
std::size_t threads_at_nice(pid_t pid, int nice) {
  std::size_t found = 0;
  std::error_code ec;
  for (const auto& task :
       fs::directory_iterator(fs::path("/proc") / std::to_string(pid) / "task", ec)) {
    const std::string stat = read_file(task.path() / "stat");
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string field;
    for (int index = 3; index <= 19 && fields >> field; ++index) {
      if (index == 19 && std::stoi(field) == nice) ++found;
    }
  }
  return found;
}

// Loading a problem proves that its reference passes: for a first-position whose W_P columns
// all differ, every string up to length 23 (16 777 214 strings, prefix by prefix) is still
// about half a second of a core (at length 20, then 22, the prefix walk of issue 23 made it
// too quick to show anything). Two validations at once held both of the server's io threads
// (and so /healthz) that long; they run on the long-grading threads now, at a lower priority
// than the io threads (server/transport/background_priority.h). Health is judged against the
// proofs' own time, not a fixed figure: with the io threads held, a probe waits for a whole proof;
// with them free, for a small part of one even on a loaded two-core VM (CI once saw 318 ms
// against a 100 ms bound at equal priority, with another test beside it).
TEST_F(KeyedServer, ValidatingProblemsThatTakeSecondsToProveLeavesHealthAnswered) {
  const std::string text = testing::prefix_by_prefix_problem("slow", 23).dump();
  const std::string raw =
      "POST /v1/problems/validate HTTP/1.1\r\nHost: localhost\r\n"
      "Authorization: Bearer " +
      staff_ +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(text.size()) +
      "\r\n\r\n" + text;
  Client first(port_), second(port_);
  const auto sent = std::chrono::steady_clock::now();
  first.write_raw(raw);
  second.write_raw(raw);
  std::this_thread::sleep_for(100ms);  // both read and being proved
  int probes = 0;
  std::size_t niced = 0;
  std::chrono::duration<double, std::milli> worst{0};
  const auto give_up = std::chrono::steady_clock::now() + 60s;
  while (!(first.readable() && second.readable()) && std::chrono::steady_clock::now() < give_up) {
    niced = std::max(niced, threads_at_nice(server_->pid(), limits::kBackgroundNice));
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(call(port_, "GET", "/healthz").result_int(), 200);
    worst = std::max(
        worst, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start));
    ++probes;
    std::this_thread::sleep_for(20ms);
  }
  const std::chrono::duration<double, std::milli> proving = std::chrono::steady_clock::now() - sent;
  EXPECT_GE(probes, 3) << "the validations did not take long: nothing was shown";
  EXPECT_GE(niced, 2u) << "the proofs did not run at the background priority";
  EXPECT_LT(worst.count(), proving.count() / 4) << "the proofs took " << proving.count() << " ms";
  for (Client* client : {&first, &second}) {
    const HttpResponse answer = client->read();
    ASSERT_EQ(answer.result_int(), 200) << answer.body();
    EXPECT_EQ(Json::parse(answer.body())["valid"], true);
    EXPECT_EQ(Json::parse(answer.body())["tested_strings"], (1u << 24) - 2);
  }
}

// Validations, PUTs and regrades run on the long-grading threads, a few at a time per client
// address, and those threads run at a lower priority than the io threads. A client that sends
// its next such request as soon as it has an answer must not be told it has too many running:
// the place is given back before the answer is sent. Here one place per address, and busy
// threads in this process hold the cores, so that a long-grading thread that still had to give
// its place back after the answer would wait for a core meanwhile (a local ctest -j2 saw PUTs
// one after another answered 429).
TEST_F(KeyedServer, LongRequestsSentOneAfterAnotherAreNeverRefusedAsTooMany) {
  ServerProcess one_place(
      std::vector<std::string>{"--port", "0", "--address", "127.0.0.1", "--threads", "2",
                               "--problems", w_.problems().string(), "--keys", w_.keys().string(),
                               "--max-long-gradings-per-address", "1"});
  const std::uint16_t port = one_place.wait_listening();
  ASSERT_NE(port, 0);
  std::atomic<bool> stop{false};
  std::vector<std::thread> busy;
  for (unsigned i = 0; i < 2 * std::max(2u, std::thread::hardware_concurrency()); ++i) {
    busy.emplace_back([&stop] {
      volatile std::uint64_t spin = 0;
      while (!stop.load(std::memory_order_relaxed)) spin = spin + 1;
    });
  }
  const std::string text = read_file(w_.problems() / "consonant-anywhere.json");
  std::vector<int> statuses;
  for (int i = 0; i < 30; ++i) {
    statuses.push_back(call(port, "POST", "/v1/problems/validate", staff_, text).result_int());
  }
  stop = true;
  for (std::thread& thread : busy) thread.join();
  EXPECT_EQ(statuses, std::vector<int>(30, 200));
}

}  // namespace
}  // namespace headgrader::server

// The submission record against the real headgrader-server binary (API.md §8): the default
// store and --store none, a store that cannot be opened, 503 when the store fails, the
// Idempotency-Key (replay, conflict, two servers racing on one PostgreSQL), attempt limits
// with Retry-After, and durability: kill -9 amid many gradings, then every answered
// submission_id is in the store (SQLite and PostgreSQL).
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "headgrader/diagnosis.h"
#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "server_harness.h"
#include "store_test_support.h"
#include "submission_store.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::kGradePath;
using testing::kHandoutSolution;
using testing::kProblemsDir;
using testing::kWrongKey;
using testing::with_student;

using namespace harness;
using store::testing::Backend;
using store::testing::TestDatabase;

// The engine's own answer for comparison, computed in this process.
std::string engine_answer(const std::string& body) {
  static const ProblemSet* set = [] {
    auto loaded = ProblemSet::load(kProblemsDir);
    if (!std::holds_alternative<ProblemSet>(loaded)) std::abort();
    return new ProblemSet(std::get<ProblemSet>(std::move(loaded)));
  }();
  const Problem& problem = *set->find("consonant-anywhere");
  const Result<Submission> submission = parse_submission(problem, body);
  return report_json(problem,
                     grade_with_diagnosis(problem, submission->weights, submission->max_failures));
}

// One request with extra headers, on `client`'s connection.
HttpResponse post(Client& client, const std::string& target, const std::string& body,
                  const std::vector<std::pair<std::string, std::string>>& headers = {}) {
  std::string raw =
      "POST " + target + " HTTP/1.1\r\nHost: localhost\r\n" +
      "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  for (const auto& [name, value] : headers) raw += name + ": " + value + "\r\n";
  raw += "\r\n" + body;
  client.write_raw(raw);
  return client.read();
}

std::string submission_id_of(const HttpResponse& response) {
  return Json::parse(response.body()).value("submission_id", "");
}

std::vector<std::string> server_args(const std::string& store_url,
                                     std::vector<std::string> more = {}) {
  std::vector<std::string> args = {"--port", "0",          "--address",  "127.0.0.1", "--threads",
                                   "2",      "--problems", kProblemsDir, "--store",   store_url};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::unique_ptr<store::SubmissionStore> open_or_fail(const std::string& url) {
  auto opened = store::open_store(url);
  EXPECT_TRUE(opened) << opened.error().message;
  return opened ? std::move(opened).value() : nullptr;
}

// A raw connection to the test database, to break it from outside the server.
std::unique_ptr<store::SqlConnection> raw_connection(const TestDatabase& db) {
  auto opened = db.connect();
  EXPECT_TRUE(opened);
  return opened ? std::move(opened).value() : nullptr;
}

TEST(StoreE2E, TheDefaultStoreIsAFileInTheWorkingDirectoryAndAnswersGainTheirId) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("headgrader-default-store-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  {
    ServerProcess server({"--port", "0", "--address", "127.0.0.1", "--problems", kProblemsDir},
                         StderrTo::kFile, dir, /*store_none=*/false);
    const std::uint16_t port = server.wait_listening();
    ASSERT_NE(port, 0);
    Client client(port);
    const HttpResponse answer = post(client, kGradePath, kHandoutSolution);
    ASSERT_EQ(answer.result(), http::status::ok) << answer.body();
    const std::string id = submission_id_of(answer);
    ASSERT_EQ(id.size(), 28u);
    // Part 1's answer byte for byte, then "submission_id" as the last key.
    const std::string part1 = engine_answer(kHandoutSolution);
    EXPECT_EQ(answer.body(),
              part1.substr(0, part1.size() - 1) + ",\"submission_id\":\"" + id + "\"}");
    server.signal(SIGTERM);
    EXPECT_EQ(server.wait().code, 0);
    EXPECT_EQ(server.stderr_text().find("W_q"), std::string::npos);  // the record is not logged
  }
  ASSERT_TRUE(std::filesystem::exists(dir / "headgrader.db"));
  auto store = open_or_fail("sqlite:" + (dir / "headgrader.db").string());
  ASSERT_TRUE(store);
  auto page = store->list({});
  ASSERT_TRUE(page);
  ASSERT_EQ(page->records.size(), 1u);
  EXPECT_TRUE(page->records[0].passed);
  store->close();
  std::filesystem::remove_all(dir);
}

TEST(StoreE2E, StoreNoneAnswersPartOneExactly) {
  ServerProcess server(server_args("none"));
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);
  Client client(port);
  const HttpResponse answer = post(client, kGradePath, kWrongKey, {{"Idempotency-Key", "k"}});
  ASSERT_EQ(answer.result(), http::status::ok);
  EXPECT_EQ(answer.body(), engine_answer(kWrongKey));
}

TEST(StoreE2E, AStoreThatCannotBeOpenedStopsTheServerWithTheReason) {
  ServerProcess missing_folder(server_args("sqlite:/nonexistent-headgrader/x.db"));
  EXPECT_EQ(missing_folder.wait().code, 1);
  EXPECT_NE(missing_folder.stderr_text().find("/nonexistent-headgrader does not exist"),
            std::string::npos)
      << missing_folder.stderr_text();
  ServerProcess unreachable(server_args("postgresql://u:hunter2@127.0.0.1:1/db"));
  EXPECT_EQ(unreachable.wait().code, 1);
  const std::string said = unreachable.stderr_text();
  EXPECT_NE(said.find("cannot connect to PostgreSQL"), std::string::npos) << said;
  EXPECT_EQ(said.find("hunter2"), std::string::npos);
  ServerProcess scheme(server_args("mysql://x"));
  EXPECT_EQ(scheme.wait().code, 1);
  ServerProcess limit_without_store(server_args("none", {"--rate-limit", "5/10m"}));
  EXPECT_EQ(limit_without_store.wait().code, 2);
  ServerProcess bad_limit(server_args("none", {"--rate-limit", "5/10x"}));
  EXPECT_EQ(bad_limit.wait().code, 2);
  EXPECT_NE(bad_limit.stderr_text().find("30/1h"), std::string::npos);
}

// Removed while serving (the file, its WAL and its shared memory), the store would keep every
// grading in a deleted file: each must be answered 503, no empty file may appear at the path,
// and after a restart every grading answered 200 is there.
TEST(StoreE2E, ADeletedSqliteStoreAnswers503AndNeverAGradingItDoesNotKeep) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("headgrader-deleted-store-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path file = dir / "h.db";
  const std::string url = "sqlite:" + file.string();
  std::vector<std::string> answered_after_removal;
  {
    ServerProcess server(server_args(url));
    const std::uint16_t port = server.wait_listening();
    ASSERT_NE(port, 0);
    Client client(port);
    ASSERT_EQ(post(client, kGradePath, kHandoutSolution).result(), http::status::ok);
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(file.string() + suffix);
    for (int i = 0; i < 6; ++i) {
      // Half on the same connection, half on new ones.
      std::optional<Client> fresh;
      if (i % 2 == 1) fresh.emplace(port);
      const HttpResponse answer =
          post(fresh ? *fresh : client, kGradePath,
               with_student(i % 2 ? kWrongKey : kHandoutSolution, "s" + std::to_string(i)));
      if (answer.result() == http::status::ok) {
        answered_after_removal.push_back(submission_id_of(answer));
        continue;
      }
      EXPECT_EQ(answer.result(), http::status::service_unavailable) << answer.body();
      EXPECT_EQ(error_of(answer)["code"], "store_unavailable") << answer.body();
      EXPECT_NE(error_of(answer)["message"].get<std::string>().find("deleted or replaced"),
                std::string::npos)
          << answer.body();
    }
    EXPECT_TRUE(answered_after_removal.empty())
        << answered_after_removal.size() << " gradings answered 200 into the deleted file";
    EXPECT_FALSE(fs::exists(file)) << "a connection created a new, empty store at the path";
    server.signal(SIGTERM);
    server.wait();
  }
  {
    ServerProcess again(server_args(url));  // a new file at the path, from empty
    const std::uint16_t port = again.wait_listening();
    ASSERT_NE(port, 0);
    auto store = open_or_fail(url);
    ASSERT_TRUE(store);
    for (const std::string& id : answered_after_removal) {
      auto found = store->get(id);
      ASSERT_TRUE(found) << found.error().message;
      EXPECT_TRUE(found->has_value()) << id << " was answered 200 and is not kept";
    }
    store->close();
    Client client(port);
    EXPECT_EQ(post(client, kGradePath, kHandoutSolution).result(), http::status::ok);
  }
  fs::remove_all(dir);
}

class StoreBackendE2E : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    db_ = TestDatabase::make(GetParam());
    if (!db_) {
      if (HasFailure()) return;
      GTEST_SKIP() << "HEADGRADER_TEST_POSTGRES is not set: run under scripts/with-postgres.sh";
    }
  }
  std::uint16_t start(std::vector<std::string> more = {}) {
    servers_.push_back(std::make_unique<ServerProcess>(server_args(db_->url(), std::move(more))));
    return servers_.back()->wait_listening();
  }
  std::unique_ptr<TestDatabase> db_;
  std::vector<std::unique_ptr<ServerProcess>> servers_;
};

TEST_P(StoreBackendE2E, AFailingStoreIsAnswered503AndNothingIsGraded) {
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  auto raw = raw_connection(*db_);
  ASSERT_TRUE(raw);
  const bool pg = GetParam() == Backend::kPostgres;
  ASSERT_TRUE(raw->exec_script(
      pg ? "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'disk is "
           "full'; END $$ LANGUAGE plpgsql; CREATE TRIGGER refuse BEFORE INSERT ON submissions "
           "FOR EACH ROW EXECUTE FUNCTION refuse()"
         : "CREATE TRIGGER refuse BEFORE INSERT ON submissions BEGIN SELECT RAISE(FAIL, 'disk "
           "is full'); END"));
  Client client(port);
  const HttpResponse refused = post(client, kGradePath, kHandoutSolution);
  EXPECT_EQ(refused.result(), http::status::service_unavailable);
  EXPECT_EQ(error_of(refused)["code"], "store_unavailable");
  EXPECT_NE(error_of(refused)["message"].get<std::string>().find("disk is full"),
            std::string::npos);
  ASSERT_TRUE(raw->exec_script(pg ? "DROP TRIGGER refuse ON submissions" : "DROP TRIGGER refuse"));
  const HttpResponse kept = post(client, kGradePath, kHandoutSolution);
  EXPECT_EQ(kept.result(), http::status::ok);
  auto rows = raw->query("SELECT COUNT(*) FROM submissions", {});
  ASSERT_TRUE(rows);
  EXPECT_EQ(*rows->front()[0], "1");
}

TEST_P(StoreBackendE2E, AnIdempotencyKeyReplaysTheFirstAnswerAndRefusesAnotherBody) {
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  Client client(port);
  const HttpResponse first = post(client, kGradePath, kWrongKey, {{"Idempotency-Key", "try-1"}});
  ASSERT_EQ(first.result(), http::status::ok) << first.body();
  const HttpResponse again = post(client, kGradePath, kWrongKey, {{"Idempotency-Key", "try-1"}});
  EXPECT_EQ(again.result(), http::status::ok);
  EXPECT_EQ(again.body(), first.body());
  const HttpResponse other =
      post(client, kGradePath, kHandoutSolution, {{"Idempotency-Key", "try-1"}});
  EXPECT_EQ(other.result(), http::status::conflict);
  EXPECT_EQ(error_of(other)["code"], "idempotency_conflict");
  const HttpResponse fresh =
      post(client, kGradePath, kHandoutSolution, {{"Idempotency-Key", "try-2"}});
  EXPECT_EQ(fresh.result(), http::status::ok);
  EXPECT_NE(submission_id_of(fresh), submission_id_of(first));

  for (const std::string& bad :
       {std::string(201, 'k'), std::string("has space"), std::string("caf\xc3\xa9")}) {
    const HttpResponse refused =
        post(client, kGradePath, kHandoutSolution, {{"Idempotency-Key", bad}});
    EXPECT_EQ(refused.result(), http::status::bad_request) << bad;
    EXPECT_NE(error_of(refused)["message"].get<std::string>().find("1 to 200 visible ASCII"),
              std::string::npos);
  }
  auto store = open_or_fail(db_->url());
  auto page = store->list({});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->records.size(), 2u);
  store->close();
}

TEST_P(StoreBackendE2E, AnIdempotencyKeyNeverReplaysAnotherProblemsGrade) {
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  Client client(port);
  const std::string body = with_student(kWrongKey, "ada");
  const HttpResponse first = post(client, kGradePath, body, {{"Idempotency-Key", "same"}});
  ASSERT_EQ(first.result(), http::status::ok) << first.body();
  // Long and short gradings look the key up at different places (before grading, or where
  // the record is committed): a student-less body and one with a student both cross over.
  for (const std::string& other : {body, kWrongKey}) {
    const HttpResponse crossed = post(client, "/v1/problems/consonant-proportion/grade", other,
                                      {{"Idempotency-Key", "same"}});
    EXPECT_EQ(crossed.result(), http::status::conflict) << crossed.body();
    EXPECT_EQ(error_of(crossed)["code"], "idempotency_conflict");
    EXPECT_NE(error_of(crossed)["message"].get<std::string>().find("consonant-anywhere"),
              std::string::npos)
        << crossed.body();
  }
  // The same problem still replays.
  const HttpResponse again = post(client, kGradePath, body, {{"Idempotency-Key", "same"}});
  EXPECT_EQ(again.result(), http::status::ok);
  EXPECT_EQ(again.body(), first.body());
  auto store = open_or_fail(db_->url());
  auto page = store->list({});
  ASSERT_TRUE(page);
  ASSERT_EQ(page->records.size(), 1u);
  EXPECT_EQ(page->records[0].problem, "consonant-anywhere");
  store->close();
}

TEST_P(StoreBackendE2E, TwoServersRacingOnOneKeyKeepOneRecordAndGiveOneAnswer) {
  if (GetParam() == Backend::kSqlite) {
    GTEST_SKIP() << "several servers share PostgreSQL; one SQLite file is one server's";
  }
  const std::uint16_t a = start(), b = start();
  ASSERT_NE(a, 0);
  ASSERT_NE(b, 0);
  constexpr int kThreads = 8;
  std::vector<std::string> bodies(kThreads);
  std::vector<int> statuses(kThreads);
  std::vector<std::thread> threads;
  for (int round = 0; round < 5; ++round) {
    const std::string key = "race-" + std::to_string(round);
    threads.clear();
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        Client client(t % 2 == 0 ? a : b);
        const HttpResponse answer =
            post(client, kGradePath, with_student(kWrongKey, "ada"), {{"Idempotency-Key", key}});
        statuses[static_cast<std::size_t>(t)] = answer.result_int();
        bodies[static_cast<std::size_t>(t)] = answer.body();
      });
    }
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) {
      EXPECT_EQ(statuses[static_cast<std::size_t>(t)], 200) << bodies[static_cast<std::size_t>(t)];
      EXPECT_EQ(bodies[static_cast<std::size_t>(t)], bodies[0]);
    }
  }
  auto store = open_or_fail(db_->url());
  auto page = store->list({});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->records.size(), 5u);  // one per key
  store->close();
}

TEST_P(StoreBackendE2E, AttemptLimitAnswers429WithRetryAfterPerStudentAndProblem) {
  const std::uint16_t port = start({"--rate-limit", "2/1h"});
  ASSERT_NE(port, 0);
  Client client(port);
  const std::string ada = with_student(kWrongKey, "ada");
  EXPECT_EQ(post(client, kGradePath, ada).result(), http::status::ok);
  EXPECT_EQ(post(client, kGradePath, ada).result(), http::status::ok);
  const HttpResponse limited = post(client, kGradePath, ada);
  ASSERT_EQ(limited.result(), http::status::too_many_requests) << limited.body();
  EXPECT_EQ(error_of(limited)["code"], "rate_limited");
  const int retry_after = std::stoi(std::string(limited[http::field::retry_after]));
  EXPECT_GE(retry_after, 3590);
  EXPECT_LE(retry_after, 3600);
  const std::string message = error_of(limited)["message"];
  EXPECT_NE(message.find("the next grading is allowed at 20"), std::string::npos) << message;
  EXPECT_NE(message.find("in " + std::to_string(retry_after) + " seconds"), std::string::npos)
      << message;
  // Another student, another problem and gradings without a student are not limited by it.
  EXPECT_EQ(post(client, kGradePath, with_student(kWrongKey, "bob")).result(), http::status::ok);
  const std::string proportion =
      R"({"W_q": [[0, 0]], "W_k": [[0, 0]], "W_V": [[1, 0], [0, 1]], "student": "ada"})";
  EXPECT_EQ(post(client, "/v1/problems/consonant-proportion/grade", proportion).result(),
            http::status::ok);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(post(client, kGradePath, kWrongKey).result(), http::status::ok);
  }
}

// The limit is counted again where the record is committed: gradings sent together, each
// counted before grading while none of the others had been kept, are not all kept.
TEST_P(StoreBackendE2E, AttemptLimitHoldsForGradingsSentTogether) {
  const std::uint16_t port = start({"--rate-limit", "3/1h"});
  ASSERT_NE(port, 0);
  constexpr int kGradings = 30;
  std::vector<int> statuses(kGradings);
  std::vector<std::string> retry_after(kGradings);
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  for (int t = 0; t < kGradings; ++t) {
    threads.emplace_back([&, t] {
      Client client(port);
      ready.fetch_add(1);
      while (ready.load() < kGradings) std::this_thread::yield();
      const HttpResponse answer = post(client, kGradePath, with_student(kWrongKey, "ada"));
      statuses[static_cast<std::size_t>(t)] = answer.result_int();
      retry_after[static_cast<std::size_t>(t)] = std::string(answer[http::field::retry_after]);
    });
  }
  for (auto& thread : threads) thread.join();
  int ok = 0, limited = 0;
  for (int t = 0; t < kGradings; ++t) {
    const auto i = static_cast<std::size_t>(t);
    if (statuses[i] == 200) ++ok;
    if (statuses[i] == 429) {
      ++limited;
      EXPECT_FALSE(retry_after[i].empty());
    }
  }
  EXPECT_EQ(ok, 3);
  EXPECT_EQ(limited, kGradings - 3);
  auto store = open_or_fail(db_->url());
  auto page = store->list({});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->records.size(), 3u);
  store->close();
}

// Two servers on one PostgreSQL count the same records: together they keep no more than one
// would.
TEST_P(StoreBackendE2E, AttemptLimitHoldsAcrossServersOnOneDatabase) {
  if (GetParam() == Backend::kSqlite) {
    GTEST_SKIP() << "several servers share PostgreSQL; one SQLite file is one server's";
  }
  const std::uint16_t a = start({"--rate-limit", "3/1h"}), b = start({"--rate-limit", "3/1h"});
  ASSERT_NE(a, 0);
  ASSERT_NE(b, 0);
  constexpr int kGradings = 20;
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kGradings; ++t) {
    threads.emplace_back([&, t] {
      Client client(t % 2 == 0 ? a : b);
      if (post(client, kGradePath, with_student(kWrongKey, "ada")).result() == http::status::ok) {
        ok.fetch_add(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(ok.load(), 3);
  auto store = open_or_fail(db_->url());
  auto page = store->list({});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->records.size(), 3u);
  store->close();
}

// Many gradings from several connections; the server is killed (SIGKILL) while they run.
// Every grading that was answered 200 must be in the store afterwards.
TEST_P(StoreBackendE2E, EveryAnsweredGradingSurvivesKillNine) {
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  std::mutex mutex;
  std::vector<std::string> answered;
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      try {
        Client client(port);
        for (int i = 0; !stop; ++i) {
          const HttpResponse answer =
              post(client, kGradePath,
                   with_student(i % 2 ? kWrongKey : kHandoutSolution, "s" + std::to_string(t)));
          if (answer.result() != http::status::ok) continue;
          const std::lock_guard lock(mutex);
          answered.push_back(submission_id_of(answer));
        }
      } catch (const std::exception&) {
        // the server died under this connection: what it answered is already counted
      }
    });
  }
  for (int waited = 0; waited < 1000; ++waited) {
    {
      const std::lock_guard lock(mutex);
      if (answered.size() >= 300) break;
    }
    std::this_thread::sleep_for(10ms);
  }
  servers_.back()->signal(SIGKILL);
  stop = true;
  for (auto& thread : threads) thread.join();
  servers_.back()->wait();
  ASSERT_GE(answered.size(), 100u);

  const std::uint16_t again = start();  // the same store, after the crash
  ASSERT_NE(again, 0);
  auto store = open_or_fail(db_->url());
  ASSERT_TRUE(store);
  std::size_t missing = 0;
  for (const std::string& id : answered) {
    auto found = store->get(id);
    ASSERT_TRUE(found) << found.error().message;
    if (!found->has_value()) ++missing;
  }
  EXPECT_EQ(missing, 0u) << "of " << answered.size() << " answered gradings";
  Client client(again);
  EXPECT_EQ(post(client, kGradePath, kHandoutSolution).result(), http::status::ok);
  store->close();
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreBackendE2E,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) { return store::testing::backend_name(info.param); });

}  // namespace
}  // namespace headgrader::server

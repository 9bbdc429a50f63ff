// What the end-to-end tests of the submission record's store (tests/server/store_e2e_test.cc,
// idempotency_key_e2e_test.cc, attempt_limit_e2e_test.cc) share: the engine's own answer, a
// POST with extra headers, the server's flags on a store, a store or a raw connection opened
// from the test, and their fixture StoreBackendE2E.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "headgrader/diagnosis.h"
#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "server_harness.h"
#include "store_test_support.h"
#include "submission_store.h"
#include "test_support.h"

namespace headgrader::server::store_e2e_testing {

using namespace harness;
using store::testing::Backend;
using store::testing::TestDatabase;

// The engine's own answer for comparison, computed in this process.
inline std::string engine_answer(const std::string& body) {
  static const ProblemSet* set = [] {
    auto loaded = ProblemSet::load(headgrader::testing::kProblemsDir);
    if (!std::holds_alternative<ProblemSet>(loaded)) std::abort();
    return new ProblemSet(std::get<ProblemSet>(std::move(loaded)));
  }();
  const Problem& problem = *set->find("consonant-anywhere");
  const Result<Submission> submission = parse_submission(problem, body);
  return report_json(problem,
                     grade_with_diagnosis(problem, submission->weights, submission->max_failures));
}

// One request with extra headers, on `client`'s connection.
inline HttpResponse post(Client& client, const std::string& target, const std::string& body,
                         const std::vector<std::pair<std::string, std::string>>& headers = {}) {
  std::string raw =
      "POST " + target + " HTTP/1.1\r\nHost: localhost\r\n" +
      "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  for (const auto& [name, value] : headers) raw += name + ": " + value + "\r\n";
  raw += "\r\n" + body;
  client.write_raw(raw);
  return client.read();
}

inline std::string submission_id_of(const HttpResponse& response) {
  return Json::parse(response.body()).value("submission_id", "");
}

inline std::vector<std::string> server_args(const std::string& store_url,
                                            std::vector<std::string> more = {}) {
  std::vector<std::string> args = {
      "--port",    "0",      "--address",  "127.0.0.1",
      "--threads", "2",      "--problems", headgrader::testing::kProblemsDir,
      "--store",   store_url};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

inline std::unique_ptr<store::SubmissionStore> open_or_fail(const std::string& url) {
  auto opened = store::open_store(url);
  EXPECT_TRUE(opened) << opened.error().message;
  return opened ? std::move(opened).value() : nullptr;
}

// A raw connection to the test database, to break it from outside the server.
inline std::unique_ptr<store::SqlConnection> raw_connection(const TestDatabase& db) {
  auto opened = db.connect();
  EXPECT_TRUE(opened);
  return opened ? std::move(opened).value() : nullptr;
}

// A database of the parameter's backend for each test, and the servers it starts on it.
// Instantiated once for both backends, in tests/server/store_e2e_test.cc (a second
// instantiation would run every test twice).
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

}  // namespace headgrader::server::store_e2e_testing

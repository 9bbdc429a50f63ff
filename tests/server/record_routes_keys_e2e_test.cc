// Keys on the record's staff routes (API.md §8) against the real binaries, on SQLite and
// PostgreSQL, with keys made by `headgrader keys`: only a staff key may read the record,
// without keys the routes are disabled, Idempotency-Keys are scoped to the key, and the lms
// key's cap holds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "record_routes_support.h"
#include "server_harness.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::kGradePath;
using testing::kHandoutSolution;
using testing::kWrongKey;
using testing::with_student;

using namespace harness;
using record_routes_testing::RecordRoutes;
using store::testing::Backend;

TEST_P(RecordRoutes, OnlyAStaffKeyMayReadTheRecord) {
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  for (const std::string path :
       {"/v1/submissions", "/v1/submissions.csv", "/v1/submissions/0123",
        "/v1/problems/consonant-anywhere/stats", "/v1/problems/consonant-anywhere/integrity"}) {
    const HttpResponse nobody = call(port, "GET", path);
    EXPECT_EQ(nobody.result(), http::status::unauthorized) << path;
    EXPECT_EQ(nobody[http::field::www_authenticate], "Bearer");
    const HttpResponse lms = call(port, "GET", path, lms_);
    EXPECT_EQ(lms.result(), http::status::forbidden) << path;
    EXPECT_EQ(code_of(lms), "forbidden");
  }
  EXPECT_EQ(call(port, "POST", "/v1/problems/consonant-anywhere/regrade", lms_, "{}").result(),
            http::status::forbidden);
  EXPECT_EQ(call(port, "GET", "/v1/submissions", staff_).result(), http::status::ok);
  EXPECT_EQ(call(port, "GET", "/v1/submissions/0123", staff_).result(), http::status::not_found);
  EXPECT_EQ(call(port, "GET", "/v1/problems/nope/stats", staff_).result(), http::status::not_found);
  const HttpResponse wrong_method =
      call(port, "GET", "/v1/problems/consonant-anywhere/regrade", staff_);
  EXPECT_EQ(wrong_method.result(), http::status::method_not_allowed);
  EXPECT_EQ(wrong_method[http::field::allow], "POST");
}

TEST_P(RecordRoutes, WithoutKeysTheStaffRoutesAreDisabled) {
  server_ = std::make_unique<ServerProcess>(
      std::vector<std::string>{"--port", "0", "--address", "127.0.0.1", "--problems",
                               (root_ / "problems").string(), "--store", db_->url()});
  const std::uint16_t port = server_->wait_listening();
  ASSERT_NE(port, 0);
  const HttpResponse answer = call(port, "GET", "/v1/submissions");
  EXPECT_EQ(answer.result(), http::status::forbidden);
  EXPECT_EQ(code_of(answer), "staff_disabled");
}

TEST_P(RecordRoutes, IdempotencyKeysAreScopedToTheKeyAndLmsKeysAreCapped) {
  const std::uint16_t port = start({"--rate-limit", "1/1h"});
  ASSERT_NE(port, 0);
  const std::string body = with_student(kWrongKey, "ada");
  const HttpResponse canvas = grade(port, body, {"Idempotency-Key: same"});
  const HttpResponse moodle =
      call(port, "POST", kGradePath, moodle_, body, {"Idempotency-Key: same"});
  ASSERT_EQ(canvas.result(), http::status::ok);
  // The same student and problem: the per-student limit (1/1h) counts across keys.
  EXPECT_EQ(moodle.result(), http::status::too_many_requests);
  const HttpResponse replay = grade(port, body, {"Idempotency-Key: same"});
  EXPECT_EQ(replay.body(), canvas.body());  // a replay is no new grading: not limited
  const HttpResponse other = call(port, "POST", kGradePath, moodle_, with_student(kWrongKey, "bob"),
                                  {"Idempotency-Key: same"});
  EXPECT_EQ(other.result(), http::status::ok);  // moodle's "same" is not canvas's

  // Without students, canvas may send 100 × 1 gradings an hour in all (one is used above).
  int ok = 1;
  HttpResponse last;
  for (int i = 0; i < 100; ++i) {
    last = grade(port, kWrongKey);
    if (last.result() == http::status::ok) ++ok;
  }
  EXPECT_EQ(ok, 100);
  EXPECT_EQ(last.result(), http::status::too_many_requests);
  EXPECT_EQ(code_of(last), "rate_limited");
  EXPECT_NE(last.body().find("100 gradings"), std::string::npos) << last.body();
  EXPECT_FALSE(last[http::field::retry_after].empty());
  // Held at its cap (server/access/keys_at_cap.h): refused again, at once, with its window's
  // time.
  const HttpResponse again = grade(port, kWrongKey);
  EXPECT_EQ(again.result(), http::status::too_many_requests);
  EXPECT_NE(again.body().find("100 gradings"), std::string::npos) << again.body();
  ASSERT_FALSE(again[http::field::retry_after].empty());
  EXPECT_LE(std::stoi(std::string(again[http::field::retry_after])),
            std::stoi(std::string(last[http::field::retry_after])));
}

}  // namespace
}  // namespace headgrader::server

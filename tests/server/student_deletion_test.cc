// DELETE /v1/students/{student} and GET /v1/audit (API.md §17) against the real binaries, on a
// real SQLite file and a real PostgreSQL server: every trace of the student goes (each table
// read back whole: records and their idempotency keys, passbacks whatever their status,
// tokens, the last score's time), others' data stays, the audit keeps the key's name and a
// SHA-256 of the student (worked out by sha256sum), paged newest first, and outlives
// retention; only a staff key may do it; and the access log never holds the student, however
// the path is spelt.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/rfc3339.h"
#include "operations_support.h"
#include "server_harness.h"
#include "store_test_support.h"
#include "submission_store.h"
#include "test_support.h"

namespace headgrader::server::student_deletion_test {
namespace {

using headgrader::testing::kGradePath;
using headgrader::testing::kHandoutSolution;
using headgrader::testing::kWrongKey;
using headgrader::testing::with_student;
using store::testing::Backend;
using store::testing::TestDatabase;
using namespace harness;
namespace fs = std::filesystem;

// The student deleted: a space and a slash, so that the path carries it percent-encoded.
const std::string kStudent = "Ada Lovelace/7731";
const std::string kStudentInPath = "Ada%20Lovelace%2F7731";

std::string shell_output(const std::string& command) {
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  ::pclose(pipe);
  while (out.ends_with('\n') || out.ends_with(' ') || out.ends_with('-')) out.pop_back();
  return out;
}

// sha256sum's hex of `text`.
std::string independent_sha256(const std::string& text) {
  return shell_output("printf '%s' '" + text + "' | sha256sum");
}

void commit(store::SubmissionStore& store, const store::SubmissionRecord& record,
            std::optional<store::PassbackRequest> passback) {
  std::promise<Result<store::CommitOutcome>> promise;
  auto future = promise.get_future();
  store.commit(record, std::move(passback), [&promise](Result<store::CommitOutcome> outcome) {
    promise.set_value(std::move(outcome));
  });
  const auto outcome = future.get();
  ASSERT_TRUE(outcome) << outcome.error().message;
}

store::SubmissionRecord record_of(const std::string& student, store::TimeMs time) {
  store::SubmissionRecord r;
  r.id = store::new_submission_id(time);
  r.time = time;
  r.problem = "consonant-anywhere";
  r.problem_sha256 = std::string(64, 'a');
  r.student = student;
  r.key = "canvas";
  r.body = with_student(kHandoutSolution, student);
  r.passed = true;
  r.tests_total = r.tests_passed = 1;
  r.score = 1.0;
  r.answer = "{}";
  return r;
}

store::StudentToken token_of(const std::string& student, char fill) {
  store::StudentToken token;
  token.token_sha256 = std::string(64, fill);
  token.student = student;
  token.problem = "consonant-anywhere";
  token.issuer = "https://lms";
  token.client_id = "client";
  token.lineitem = "https://lms/li/1";
  token.expires = store::now_ms() + 3'600'000;
  token.details = R"({"name": ")" + student + "\"}";
  return token;
}

class StudentDeletion : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    db_ = TestDatabase::make(GetParam());
    if (!db_) {
      if (HasFailure()) return;
      GTEST_SKIP() << "HEADGRADER_TEST_POSTGRES is not set: run under scripts/with-postgres.sh";
    }
    root_ = fs::temp_directory_path() / ("headgrader-deletion-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(counter_++));
    fs::remove_all(root_);
    fs::create_directories(root_ / "problems");
    fs::copy_file(fs::path(headgrader::testing::kProblemsDir) / "consonant-anywhere.json",
                  root_ / "problems" / "consonant-anywhere.json");
    staff_ = headgrader::testing::add_key(root_ / "keys.json", "ta", "staff");
    lms_ = headgrader::testing::add_key(root_ / "keys.json", "canvas", "lms");
    ASSERT_EQ(staff_.size(), 43u);
  }
  void TearDown() override {
    server_.reset();
    std::error_code ignored;
    if (!root_.empty()) fs::remove_all(root_, ignored);
  }
  std::uint16_t start() {
    server_ = std::make_unique<ServerProcess>(std::vector<std::string>{
        "--port", "0", "--address", "127.0.0.1", "--problems", (root_ / "problems").string(),
        "--keys", (root_ / "keys.json").string(), "--store", db_->url()});
    return server_->wait_listening();
  }
  // A connection to the database itself, to read what the store holds.
  std::unique_ptr<store::SqlConnection> raw() {
    auto opened = db_->connect();
    EXPECT_TRUE(opened) << opened.error().message;
    return opened ? std::move(opened).value() : nullptr;
  }
  // Every cell of every table, each as "table: cell".
  std::vector<std::string> every_cell() {
    auto db = raw();
    auto tables = db->query(GetParam() == Backend::kSqlite
                                ? "SELECT name FROM sqlite_master WHERE type = 'table'"
                                : "SELECT table_name FROM information_schema.tables WHERE "
                                  "table_schema = 'public'",
                            {});
    EXPECT_TRUE(tables) << tables.error().message;
    std::vector<std::string> cells;
    for (const auto& table : *tables) {
      auto rows = db->query("SELECT * FROM " + *table[0], {});
      EXPECT_TRUE(rows) << rows.error().message;
      for (const auto& row : *rows) {
        for (const auto& cell : row) cells.push_back(*table[0] + ": " + cell.value_or("NULL"));
      }
    }
    return cells;
  }
  std::int64_t count(const std::string& sql) {
    auto rows = raw()->query(sql, {});
    EXPECT_TRUE(rows) << rows.error().message;
    return std::stoll(*rows->front()[0]);
  }

  static inline int counter_ = 0;
  std::unique_ptr<TestDatabase> db_;
  fs::path root_;
  std::string staff_, lms_;
  std::unique_ptr<ServerProcess> server_;
};

TEST_P(StudentDeletion, EveryTraceOfTheStudentGoesButTheAuditEntryAndOthersStay) {
  // Through the store: a record with a pending passback and one with a sent one, tokens.
  const store::TimeMs now = store::now_ms();
  const store::PassbackRequest passback{"https://lms", "client", "https://lms/li/1", "{}",
                                        [](double, store::TimeMs) { return std::string("{}"); }};
  {
    auto opened = store::open_store(db_->url());
    ASSERT_TRUE(opened) << opened.error().message;
    store::SubmissionStore& records = **opened;
    commit(records, record_of(kStudent, now - 2000), passback);
    commit(records, record_of(kStudent, now - 1000), passback);
    commit(records, record_of("bob", now - 500), passback);
    auto pending = records.list_passbacks(store::PassbackStatus::kPending, 10);
    ASSERT_TRUE(pending);
    ASSERT_EQ(pending->size(), 3u);
    ASSERT_TRUE(records.mark_passback_sent(pending->back().id, 200));  // the oldest, the student's
    ASSERT_TRUE(records.put_student_token(token_of(kStudent, 'a')));
    ASSERT_TRUE(records.put_student_token(token_of("bob", 'b')));
    records.close();
  }
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  // Through the server: two gradings with Idempotency-Keys, one of another student.
  for (const std::string key : {"k1", "k2"}) {
    ASSERT_EQ(call(port, "POST", kGradePath, lms_, with_student(kWrongKey, kStudent),
                   {"Idempotency-Key: " + key})
                  .result(),
              http::status::ok);
  }
  ASSERT_EQ(call(port, "POST", kGradePath, lms_, with_student(kHandoutSolution, "bob")).result(),
            http::status::ok);
  ASSERT_EQ(count("SELECT COUNT(*) FROM submissions"), 6);
  ASSERT_EQ(count("SELECT COUNT(*) FROM passback_latest"), 2);

  // Refused without a staff key, and nothing deleted.
  const HttpResponse nobody = call(port, "DELETE", "/v1/students/" + kStudentInPath);
  EXPECT_EQ(nobody.result(), http::status::unauthorized);
  EXPECT_EQ(nobody[http::field::www_authenticate], "Bearer");
  const HttpResponse lms = call(port, "DELETE", "/v1/students/" + kStudentInPath, lms_);
  EXPECT_EQ(lms.result(), http::status::forbidden);
  EXPECT_EQ(code_of(lms), "forbidden");
  EXPECT_EQ(call(port, "GET", "/v1/audit", lms_).result(), http::status::forbidden);
  EXPECT_EQ(call(port, "GET", "/v1/audit").result(), http::status::unauthorized);
  EXPECT_EQ(count("SELECT COUNT(*) FROM submissions"), 6);

  const HttpResponse deleted = call(port, "DELETE", "/v1/students/" + kStudentInPath, staff_);
  ASSERT_EQ(deleted.result(), http::status::ok) << deleted.body();
  EXPECT_EQ(deleted.body(), R"({"deleted":4})");
  const std::string after = format_rfc3339_ms(store::now_ms());

  // Not one cell of any table holds the student any more (their records held it in
  // `student`, the body and the tokens' details), and bob's data is whole.
  const std::string hash = independent_sha256(kStudent);
  ASSERT_EQ(hash.size(), 64u);
  int audit_cells = 0;
  for (const std::string& cell : every_cell()) {
    EXPECT_EQ(cell.find("Lovelace"), std::string::npos) << cell;
    if (cell.find(hash) != std::string::npos) ++audit_cells;
  }
  EXPECT_EQ(audit_cells, 1) << "the audit entry keeps the student's hash";
  EXPECT_EQ(count("SELECT COUNT(*) FROM submissions WHERE student = 'bob'"), 2);
  EXPECT_EQ(count("SELECT COUNT(*) FROM submissions"), 2);
  EXPECT_EQ(count("SELECT COUNT(*) FROM passback"), 1);
  EXPECT_EQ(count("SELECT COUNT(*) FROM student_tokens WHERE student = 'bob'"), 1);
  EXPECT_EQ(count("SELECT COUNT(*) FROM student_tokens"), 1);
  EXPECT_EQ(count("SELECT COUNT(*) FROM passback_latest"), 1);
  EXPECT_EQ(count("SELECT COUNT(*) FROM submissions WHERE idem_key IS NOT NULL"), 0);

  const HttpResponse audit = call(port, "GET", "/v1/audit", staff_);
  ASSERT_EQ(audit.result(), http::status::ok);
  const nlohmann::json entries = nlohmann::json::parse(audit.body())["entries"];
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["key"], "ta");
  EXPECT_EQ(entries[0]["student_sha256"], hash);
  EXPECT_EQ(entries[0]["deleted"], 4);
  EXPECT_LE(entries[0]["at"].get<std::string>(), after);
  EXPECT_TRUE(parse_rfc3339(entries[0]["at"].get<std::string>()));
  EXPECT_EQ(nlohmann::json::parse(audit.body())["next_cursor"], nullptr);

  // The Idempotency-Key went with its record: the same key and body are graded anew.
  const HttpResponse again = call(port, "POST", kGradePath, lms_, with_student(kWrongKey, kStudent),
                                  {"Idempotency-Key: k1"});
  ASSERT_EQ(again.result(), http::status::ok);
  EXPECT_EQ(count("SELECT COUNT(*) FROM submissions"), 3);

  // The access log has each request's line, never the student.
  const std::string log = server_->stderr_text_when([](const std::string& text) {
    return text.find("\"path\":\"/v1/students/{student}\",\"status\":200") != std::string::npos;
  });
  EXPECT_NE(log.find("\"path\":\"/v1/students/{student}\",\"status\":200"), std::string::npos)
      << log;
  EXPECT_EQ(log.find("Lovelace"), std::string::npos) << log;
}

TEST_P(StudentDeletion, TheAuditIsPagedNewestFirstAndOutlivesRetention) {
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  for (const std::string student : {"amy", "ben", "cat"}) {
    ASSERT_EQ(
        call(port, "POST", kGradePath, lms_, with_student(kHandoutSolution, student)).result(),
        http::status::ok);
  }
  // A path spelt with escapes names the same route, and is logged as the route.
  EXPECT_EQ(call(port, "DELETE", "/v1/%73tudents/amy", staff_).body(), R"({"deleted":1})");
  EXPECT_EQ(call(port, "DELETE", "/v1/students/ben", staff_).body(), R"({"deleted":1})");
  EXPECT_EQ(call(port, "DELETE", "/v1/students/nobody-at-all", staff_).body(), R"({"deleted":0})");

  const HttpResponse first = call(port, "GET", "/v1/audit?limit=2", staff_);
  ASSERT_EQ(first.result(), http::status::ok);
  const nlohmann::json page1 = nlohmann::json::parse(first.body());
  ASSERT_EQ(page1["entries"].size(), 2u);
  EXPECT_EQ(page1["entries"][0]["student_sha256"], independent_sha256("nobody-at-all"));
  EXPECT_EQ(page1["entries"][0]["deleted"], 0);
  EXPECT_EQ(page1["entries"][1]["student_sha256"], independent_sha256("ben"));
  ASSERT_TRUE(page1["next_cursor"].is_string());
  const HttpResponse second = call(
      port, "GET", "/v1/audit?limit=2&cursor=" + page1["next_cursor"].get<std::string>(), staff_);
  const nlohmann::json page2 = nlohmann::json::parse(second.body());
  ASSERT_EQ(page2["entries"].size(), 1u);
  EXPECT_EQ(page2["entries"][0]["student_sha256"], independent_sha256("amy"));
  EXPECT_EQ(page2["next_cursor"], nullptr);

  const HttpResponse bad = call(port, "GET", "/v1/audit?cursor=zz", staff_);
  EXPECT_EQ(bad.result(), http::status::bad_request);
  EXPECT_EQ(error_of(bad)["field"], "cursor");
  const HttpResponse big = call(port, "GET", "/v1/audit?limit=1001", staff_);
  EXPECT_EQ(big.result(), http::status::bad_request);
  EXPECT_EQ(error_of(big)["message"],
            "limit must be a whole number from 1 to 1000; it is \"1001\"");

  // Retention deletes records, never the audit: everything before a time far ahead.
  server_.reset();
  auto opened = store::open_store(db_->url());
  ASSERT_TRUE(opened) << opened.error().message;
  EXPECT_EQ(*(*opened)->delete_records_before(store::now_ms() + 86'400'000, 1000), 1);
  auto kept = (*opened)->list_audit(10, "");
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_EQ(kept->entries.size(), 3u);
  (*opened)->close();
}

INSTANTIATE_TEST_SUITE_P(Backends, StudentDeletion,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) { return store::testing::backend_name(info.param); });

}  // namespace
}  // namespace headgrader::server::student_deletion_test

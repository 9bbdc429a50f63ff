// The staff routes of the submission record (API.md §8) against the real binaries, on SQLite
// and PostgreSQL: the list and its filters and cursor, one whole record, the CSV parsed back,
// stats against counts worked out from the answers by hand, a regrade after the problem file
// changed (PUT), the integrity report, each grading's mistakes. Who may use them:
// record_routes_keys_e2e_test.cc; the CSVs: record_csv_e2e_test.cc; the export's streaming:
// record_export_e2e_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "csv_reader.h"
#include "record_routes_support.h"
#include "server_harness.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::kGradePath;
using testing::kHandoutSolution;
using testing::kSwappedValues;
using testing::kWrongKey;
using testing::with_student;

using namespace harness;
using record_routes_testing::RecordRoutes;
using record_routes_testing::shell;
using store::testing::Backend;

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

// RecordRoutes' tests, in every tests/server/record_*_e2e_test.cc, on both backends: here,
// once.
INSTANTIATE_TEST_SUITE_P(Backends, RecordRoutes,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) { return store::testing::backend_name(info.param); });

}  // namespace
}  // namespace headgrader::server

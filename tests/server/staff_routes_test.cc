// The staff routes of API.md §8 (server/routes/staff_routes.h, regrade_route.h) over a real
// SQLite store filled by real gradings: the JSON list and its cursor, the CSV parsed back as
// RFC 4180, one whole record, stats counted by hand, and a regrade after the problem changed.
#include "staff_routes.h"

#include <gtest/gtest.h>

#include <future>
#include <variant>

#include "csv_reader.h"
#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "regrade_route.h"
#include "store_test_support.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::kHandoutSolution;
using testing::kProblemsDir;
using testing::kSwappedValues;
using testing::kWrongKey;

using store::testing::Backend;
using store::testing::TestDatabase;

const Problem& consonant_anywhere() {
  static const ProblemSet* set = [] {
    auto loaded = ProblemSet::load(kProblemsDir);
    if (!std::holds_alternative<ProblemSet>(loaded)) std::abort();
    return new ProblemSet(std::get<ProblemSet>(std::move(loaded)));
  }();
  return *set->find("consonant-anywhere");
}

class StaffRoutes : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = TestDatabase::make(Backend::kSqlite);
    auto opened = store::open_store(db_->url());
    ASSERT_TRUE(opened) << opened.error().message;
    store_ = std::move(opened).value();
    records_.store = store_.get();
    records_.now = [this] { return clock_; };
  }
  void TearDown() override { store_->close(); }

  // A grading as the grade route keeps it.
  store::SubmissionRecord grade_and_keep(const std::string& body,
                                         std::optional<std::string> student) {
    const Problem& problem = consonant_anywhere();
    const Result<Submission> submission = parse_submission(problem, body);
    EXPECT_TRUE(submission);
    const GradeReport report = grade(problem, submission->weights, submission->max_failures);
    store::SubmissionRecord r;
    r.time = clock_ += 1000;
    r.id = store::new_submission_id(r.time);
    r.problem = problem.id;
    r.problem_sha256 = std::string(64, '1');
    r.student = std::move(student);
    r.key = "canvas";
    r.body = body;
    r.passed = report.passed;
    r.score = report.score;
    r.tests_total = static_cast<std::int64_t>(report.total);
    r.tests_passed = static_cast<std::int64_t>(report.passed_count);
    r.tests_failed = static_cast<std::int64_t>(report.failed);
    for (const auto& f : report.failures) r.failing_inputs.push_back(problem.spell(f.input));
    r.answer = with_submission_id(report_json(problem, report), r.id);
    std::promise<Result<store::CommitOutcome>> done;
    store_->commit(r, std::nullopt,
                   [&done](Result<store::CommitOutcome> o) { done.set_value(std::move(o)); });
    EXPECT_TRUE(done.get_future().get());
    return r;
  }

  std::unique_ptr<TestDatabase> db_;
  std::unique_ptr<store::SubmissionStore> store_;
  RecordSettings records_;
  store::TimeMs clock_ = 1'796'083'445'000;  // 2026-12-01T00:04:05Z
};

TEST_F(StaffRoutes, ListIsNewestFirstWithoutMatricesAndPagesByCursor) {
  const auto a = grade_and_keep(kHandoutSolution, "ada");
  const auto b = grade_and_keep(kWrongKey, "bob");
  const auto c = grade_and_keep(kSwappedValues, std::nullopt);
  const Response first = list_submissions(*store_, "limit=2", false, 11, true);
  ASSERT_EQ(first.result(), http::status::ok) << first.body();
  const Json page = Json::parse(first.body());
  ASSERT_EQ(page["submissions"].size(), 2u);
  EXPECT_EQ(page["submissions"][0]["id"], c.id);
  EXPECT_EQ(page["submissions"][1]["id"], b.id);
  EXPECT_TRUE(page["submissions"][0]["student"].is_null());
  EXPECT_FALSE(page["submissions"][0].contains("matrices"));
  EXPECT_EQ(page["submissions"][1]["time"], "2026-12-01T00:04:07.000Z");
  EXPECT_EQ(page["submissions"][1]["tests"]["total"], b.tests_total);
  ASSERT_TRUE(page["next_cursor"].is_string());
  const Response second = list_submissions(
      *store_, "limit=2&cursor=" + page["next_cursor"].get<std::string>(), false, 11, true);
  const Json rest = Json::parse(second.body());
  ASSERT_EQ(rest["submissions"].size(), 1u);
  EXPECT_EQ(rest["submissions"][0]["id"], a.id);
  EXPECT_TRUE(rest["next_cursor"].is_null());

  const Json passed = Json::parse(list_submissions(*store_, "passed=true", false, 11, true).body());
  ASSERT_EQ(passed["submissions"].size(), 1u);
  EXPECT_EQ(passed["submissions"][0]["student"], "ada");
  const Json bob = Json::parse(list_submissions(*store_, "student=bob", false, 11, true).body());
  EXPECT_EQ(bob["submissions"].size(), 1u);
  const Json window =
      Json::parse(list_submissions(*store_, "since=2026-12-01T00:04:07Z&until=2026-12-01T00:04:08Z",
                                   false, 11, true)
                      .body());
  ASSERT_EQ(window["submissions"].size(), 1u);
  EXPECT_EQ(window["submissions"][0]["id"], b.id);
}

TEST_F(StaffRoutes, BadParametersAreNamedInTheError) {
  for (const auto& [query, field] :
       std::vector<std::pair<std::string, std::string>>{{"limit=0", "limit"},
                                                        {"limit=1001", "limit"},
                                                        {"passed=yes", "passed"},
                                                        {"since=yesterday", "since"},
                                                        {"cursor=zzz", "cursor"},
                                                        {"studnet=ada", "studnet"},
                                                        {"limit=1&limit=2", "limit"}}) {
    const Response answer = list_submissions(*store_, query, false, 11, true);
    EXPECT_EQ(answer.result(), http::status::bad_request) << query;
    EXPECT_EQ(Json::parse(answer.body())["error"]["field"], field) << query;
  }
}

TEST_F(StaffRoutes, CsvParsesBackAsRfc4180WithEveryRecord) {
  const auto ada = grade_and_keep(kHandoutSolution, "ada");
  const auto bob = grade_and_keep(kWrongKey, "O'Brien, \"Bob\"\r\nJr");  // comma, quotes, CRLF
  const Response answer = list_submissions(*store_, "", true, 11, true);
  ASSERT_EQ(answer.result(), http::status::ok);
  EXPECT_EQ(answer[http::field::content_type], "text/csv; charset=utf-8");
  const auto rows = testing_csv::parse_csv(answer.body());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0],
            (std::vector<std::string>{"id", "time", "problem", "student", "key", "passed", "score",
                                      "tests_total", "tests_failed", "mistakes"}));
  EXPECT_EQ(rows[1][3], "O'Brien, \"Bob\"\r\nJr");
  EXPECT_EQ(rows[1][5], "false");
  EXPECT_EQ(rows[2][3], "ada");
  EXPECT_EQ(rows[2][5], "true");
  EXPECT_EQ(rows[2][6], "1");
  EXPECT_EQ(rows[2][0], ada.id);
  EXPECT_EQ(rows[2][1], "2026-12-01T00:04:06.000Z");
  EXPECT_EQ(rows[2][4], "canvas");
  EXPECT_EQ(rows[2][7], std::to_string(ada.tests_total));
  EXPECT_EQ(rows[2][8], "0");
  EXPECT_EQ(std::stod(rows[1][6]), bob.score);  // the shortest text that reads back exactly
  EXPECT_EQ(rows[1][8], std::to_string(bob.tests_failed));
  EXPECT_EQ(rows[2][9], "");  // kept without a diagnosis: no mistake named
}

TEST_F(StaffRoutes, OneRecordHasTheMatricesAndTheAnswerAsSent) {
  const auto kept = grade_and_keep(kWrongKey, "ada");
  const Response answer = get_submission(*store_, kept.id, 11, true);
  ASSERT_EQ(answer.result(), http::status::ok);
  const Json record = Json::parse(answer.body());
  EXPECT_EQ(record["matrices"], Json::parse(kWrongKey));
  EXPECT_EQ(record["answer"], Json::parse(kept.answer));
  EXPECT_EQ(record["answer"]["submission_id"], kept.id);
  EXPECT_EQ(record["problem_sha256"], std::string(64, '1'));
  EXPECT_EQ(get_submission(*store_, "nope", 11, true).result(), http::status::not_found);
}

TEST_F(StaffRoutes, StatsCountStudentsByTheirLatestGrading) {
  // ada: wrong then right; bob: right first; cy: swapped values only; one anonymous grading.
  grade_and_keep(kWrongKey, "ada");
  grade_and_keep(kHandoutSolution, "bob");
  grade_and_keep(kHandoutSolution, "ada");
  const auto cy = grade_and_keep(kSwappedValues, "cy");
  grade_and_keep(kWrongKey, std::nullopt);
  const Json stats = Json::parse(problem_stats(*store_, "consonant-anywhere", 11, true).body());
  EXPECT_EQ(stats["problem"], "consonant-anywhere");
  EXPECT_EQ(stats["submissions"], 5);
  EXPECT_EQ(stats["students"], 3);
  EXPECT_EQ(stats["students_passed"], 2);
  EXPECT_EQ(stats["first_try_pass_rate"], 1.0 / 3.0);  // bob only
  // cy's bin is floor(10 × passed / total) of cy's own grading; ada and bob are in the last.
  std::vector<int> bins(10, 0);
  bins[9] = 2;
  bins[static_cast<std::size_t>(cy.tests_passed * 10 / cy.tests_total)] += 1;
  EXPECT_EQ(stats["score_histogram"], Json(bins));
  ASSERT_EQ(stats["common_failures"].size(), cy.failing_inputs.size());
  EXPECT_EQ(stats["common_failures"][0]["students"], 1);
}

TEST_F(StaffRoutes, RegradeMakesNewRecordsAgainstTheProblemAsItIsNow) {
  grade_and_keep(kWrongKey, "ada");
  const auto bob = grade_and_keep(kHandoutSolution, "bob");
  // The problem now: a stricter tolerance, under which the handout's solution (attention
  // 1/(1+e^-5) ≈ 0.993 on the consonant) no longer passes.
  auto stricter = std::make_shared<Problem>(consonant_anywhere());
  stricter->tolerance = 1e-4;
  const CatalogSnapshot now(ProblemSet::of({stricter}), {std::string(64, '2')},
                            std::chrono::system_clock::now());
  const Response answer = regrade(now, "consonant-anywhere", records_, "staff-1", false, 11, true);
  ASSERT_EQ(answer.result(), http::status::ok) << answer.body();
  const Json result = Json::parse(answer.body());
  EXPECT_EQ(result["regraded"], 2);
  // bob's solution fails now; ada's wrong key scores differently too.
  ASSERT_EQ(result["changed"].size(), 2u);
  const Json& changed = result["changed"][1];
  EXPECT_EQ(changed["student"], "bob");
  EXPECT_EQ(changed["before"]["passed"], true);
  EXPECT_EQ(changed["after"]["passed"], false);
  auto record = store_->get(changed["submission_id"].get<std::string>());
  ASSERT_TRUE(record && record->has_value());
  EXPECT_EQ((*record)->regrade_of, bob.id);
  EXPECT_EQ((*record)->key, "staff-1");
  EXPECT_EQ((*record)->problem_sha256, std::string(64, '2'));  // the problem as it is now
  EXPECT_EQ(Json::parse((*record)->answer)["submission_id"], (*record)->id);
}

}  // namespace
}  // namespace headgrader::server

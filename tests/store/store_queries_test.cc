// What the store interface reads back, on a real SQLite file and a real PostgreSQL server:
// the listing (newest first, filtered, paged by its cursor), the attempt-limit windows, and
// the inputs of a problem's statistics (each student's first and latest grading).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "store_test_support.h"
#include "submission_store.h"

namespace headgrader::store {
namespace {

using testing::kT0;
using testing::make_record;
using testing::StoreTest;

TEST_P(StoreTest, ListIsNewestFirstFilteredAndPagedByCursor) {
  std::vector<SubmissionRecord> all;
  for (int i = 0; i < 25; ++i) {
    all.push_back(
        commit_ok(make_record(kT0 + (i / 2) * 1000,  // pairs share a millisecond
                              i % 3 == 0 ? "p" : "q", i % 2 == 0 ? "ada" : "bob", i % 4 == 0)));
  }
  std::sort(all.begin(), all.end(), [](const SubmissionRecord& a, const SubmissionRecord& b) {
    return std::pair(a.time, a.id) > std::pair(b.time, b.id);
  });
  SubmissionQuery query;
  query.limit = 10;
  std::vector<std::string> seen;
  for (int page_number = 0;; ++page_number) {
    auto page = store_->list(query);
    ASSERT_TRUE(page) << page.error().message;
    for (const auto& r : page->records) {
      seen.push_back(r.id);
      EXPECT_TRUE(r.body.empty());  // the list leaves the large texts out
      EXPECT_TRUE(r.answer.empty());
    }
    if (!page->next_cursor) {
      EXPECT_EQ(page_number, 2);
      break;
    }
    query.cursor = *page->next_cursor;
  }
  std::vector<std::string> expected;
  for (const auto& r : all) expected.push_back(r.id);
  EXPECT_EQ(seen, expected);

  const auto count = [&](SubmissionQuery q) {
    q.limit = 1000;
    auto page = store_->list(q);
    EXPECT_TRUE(page);
    return page ? page->records.size() : 0;
  };
  const auto expect_count = [&](auto predicate) {
    return static_cast<std::size_t>(std::count_if(all.begin(), all.end(), predicate));
  };
  SubmissionQuery q;
  q.problem = "p";
  EXPECT_EQ(count(q), expect_count([](auto& r) { return r.problem == "p"; }));
  q.student = "ada";
  EXPECT_EQ(count(q), expect_count([](auto& r) { return r.problem == "p" && r.student == "ada"; }));
  q = {};
  q.passed = true;
  EXPECT_EQ(count(q), expect_count([](auto& r) { return r.passed; }));
  q.passed = false;
  EXPECT_EQ(count(q), expect_count([](auto& r) { return !r.passed; }));
  q = {};
  q.since = kT0 + 3000;
  q.until = kT0 + 6000;  // [since, until): times 3000, 4000, 5000: six records
  EXPECT_EQ(count(q), 6u);

  SubmissionQuery bad;
  bad.cursor = "not-a-cursor";
  auto refused = store_->list(bad);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().field, "cursor");
}

TEST_P(StoreTest, AttemptWindowCountsUpToTheCapAndNamesTheOldestCounted) {
  for (int i = 0; i < 5; ++i) commit_ok(make_record(kT0 + i * 1000, "p", "ada"));
  SubmissionRecord regrade = make_record(kT0 + 9000, "p", "ada");
  regrade.regrade_of = "x";
  commit_ok(regrade);
  commit_ok(make_record(kT0 + 9500, "q", "ada"));  // another problem
  commit_ok(make_record(kT0 + 9600, "p", "bob"));  // another student

  const RateScope ada{RateScope::Kind::kStudentProblem, "ada", "p", ""};
  auto under = store_->gradings_since(ada, kT0 + 1000, 10);
  ASSERT_TRUE(under) << under.error().message;
  EXPECT_EQ(under->count, 4);  // 1000..4000; the regrade does not count
  EXPECT_FALSE(under->cap_th_newest);
  auto at_cap = store_->gradings_since(ada, kT0, 3);
  ASSERT_TRUE(at_cap);
  EXPECT_EQ(at_cap->count, 3);
  EXPECT_EQ(at_cap->cap_th_newest, kT0 + 2000);  // the newest three: 4000, 3000, 2000

  const RateScope key{RateScope::Kind::kKey, "", "", "canvas"};
  auto by_key = store_->gradings_since(key, kT0, 1000);
  ASSERT_TRUE(by_key);
  EXPECT_EQ(by_key->count, 7);
}

TEST_P(StoreTest, StatsInputsGiveEachStudentsFirstAndLatest) {
  // ada: fails (3/10) then passes; bob: passes first then a regrade fails (7/10);
  // cy: one failure (0/10); an anonymous grading counts as a submission only.
  commit_ok(make_record(kT0, "p", "ada", false, 3));
  commit_ok(make_record(kT0 + 10, "p", "bob", true));
  commit_ok(make_record(kT0 + 20, "p", "ada", true));
  commit_ok(make_record(kT0 + 30, "p", "cy", false, 0));
  commit_ok(make_record(kT0 + 40, "p", std::nullopt, true));
  commit_ok(make_record(kT0 + 50, "q", "dan", true));
  SubmissionRecord regrade = make_record(kT0 + 60, "p", "bob", false, 7);
  regrade.regrade_of = "x";
  regrade.failing_inputs = {"ab", "b"};
  commit_ok(regrade);

  auto inputs = store_->stats_inputs("p");
  ASSERT_TRUE(inputs) << inputs.error().message;
  EXPECT_EQ(inputs->submissions, 5);
  ASSERT_EQ(inputs->students.size(), 3u);
  EXPECT_EQ(inputs->students[0].student, "ada");
  EXPECT_FALSE(inputs->students[0].first_passed);
  EXPECT_TRUE(inputs->students[0].latest.passed);
  EXPECT_EQ(inputs->students[1].student, "bob");
  EXPECT_TRUE(inputs->students[1].first_passed);
  EXPECT_EQ(inputs->students[1].latest.id, regrade.id);
  EXPECT_EQ(inputs->students[2].student, "cy");

  auto latest = store_->latest_per_student("p");
  ASSERT_TRUE(latest);
  ASSERT_EQ(latest->size(), 3u);
  EXPECT_EQ((*latest)[1].id, regrade.id);
  EXPECT_EQ((*latest)[1].body, regrade.body);  // whole: regrading needs the matrices
}

}  // namespace
}  // namespace headgrader::store

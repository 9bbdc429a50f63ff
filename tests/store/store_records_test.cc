// A submission record through the store interface, on a real SQLite file and a real
// PostgreSQL server: every field reads back as written (after reopening too), absent fields
// stay absent, the schema is migrated once, records of the earlier schema are counted and
// found after migrating; and record ids sort by time.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "migrations.h"
#include "store_test_support.h"
#include "submission_store.h"

namespace headgrader::store {
namespace {

using testing::commit_now;
using testing::kT0;
using testing::make_record;
using testing::StoreTest;

TEST_P(StoreTest, ARecordReadsBackAsWrittenAfterReopening) {
  SubmissionRecord record = make_record(kT0 + 123, "consonant-anywhere", "ada");
  record.score = 663.0 / 714.0;  // not a short decimal: must come back to the last bit
  record.tests_total = 714;
  record.tests_passed = 663;
  record.tests_failed = 51;
  record.failing_inputs = {"ab", "b\"\\\n", "é"};
  record.idempotency = IdempotencyTag{"canvas", "k-1", std::string(64, 'f')};
  record.lms_context = "ctx";
  record.lms_resource_link = "link";
  record.regrade_of = "0123";
  record.mistakes = {"key_too_soft", "an_authors_name"};
  record.variant = "f1.0-o1.0";
  record.member = "consonant-proportion";
  commit_ok(record);
  store_->close();
  store_ = reopen();
  ASSERT_TRUE(store_);
  auto got = store_->get(record.id);
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_TRUE(got->has_value());
  const SubmissionRecord& r = **got;
  EXPECT_EQ(r.id, record.id);
  EXPECT_EQ(r.time, record.time);
  EXPECT_EQ(r.problem, record.problem);
  EXPECT_EQ(r.problem_sha256, record.problem_sha256);
  EXPECT_EQ(r.student, record.student);
  EXPECT_EQ(r.key, record.key);
  EXPECT_EQ(r.body, record.body);
  EXPECT_EQ(r.passed, record.passed);
  EXPECT_EQ(r.score, 663.0 / 714.0);
  EXPECT_EQ(r.tests_total, 714);
  EXPECT_EQ(r.tests_passed, 663);
  EXPECT_EQ(r.tests_failed, 51);
  EXPECT_EQ(r.failing_inputs, record.failing_inputs);
  EXPECT_EQ(r.answer, record.answer);
  EXPECT_EQ(r.regrade_of, record.regrade_of);
  ASSERT_TRUE(r.idempotency);
  EXPECT_EQ(r.idempotency->body_sha256, std::string(64, 'f'));
  EXPECT_EQ(r.lms_context, "ctx");
  EXPECT_EQ(r.lms_resource_link, "link");
  EXPECT_EQ(r.mistakes, record.mistakes);
  EXPECT_EQ(r.variant, "f1.0-o1.0");
  EXPECT_EQ(r.member, "consonant-proportion");
  auto missing = store_->get("ffffffffffff0000000000000000");
  ASSERT_TRUE(missing);
  EXPECT_FALSE(missing->has_value());
}

TEST_P(StoreTest, AbsentFieldsStayAbsent) {
  SubmissionRecord record = make_record(kT0, "p", std::nullopt);
  record.key.reset();
  commit_ok(record);
  auto got = store_->get(record.id);
  ASSERT_TRUE(got && got->has_value());
  EXPECT_FALSE((*got)->student);
  EXPECT_FALSE((*got)->key);
  EXPECT_FALSE((*got)->regrade_of);
  EXPECT_FALSE((*got)->idempotency);
  EXPECT_TRUE((*got)->failing_inputs.empty());
  EXPECT_TRUE((*got)->mistakes.empty());
  EXPECT_EQ((*got)->variant, "");  // the problem as written
}

TEST_P(StoreTest, SchemaIsMigratedOnceAndOpeningAgainChangesNothing) {
  store_->close();
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(reopen());
  // The version table holds one row per migration, not one per start.
  auto raw = db_->connect();
  ASSERT_TRUE(raw) << raw.error().message;
  auto rows = (*raw)->query("SELECT COUNT(*), MAX(version) FROM schema_version", {});
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(*rows->front()[0], std::to_string(migrations().size()));
  EXPECT_EQ(*rows->front()[1], std::to_string(migrations().size()));
}

// A database a server of the schema before the last left: its records are counted and found as
// before once this server has migrated it (the last migration rebuilt the indexes that the
// key's window and a student's gradings are read from, leaving out gradings without a key or
// without a student).
TEST_P(StoreTest, RecordsWrittenUnderTheEarlierSchemaAreCountedAndFoundAfterMigrating) {
  auto earlier = testing::TestDatabase::make(GetParam());
  ASSERT_TRUE(earlier);
  {
    auto raw = earlier->connect();
    ASSERT_TRUE(raw) << raw.error().message;
    SqlConnection& db = **raw;
    ASSERT_TRUE(db.exec_script("CREATE TABLE schema_version (version INTEGER NOT NULL)"));
    const std::size_t last = 3;  // the schema before migration 4, whose indexes this pins
    for (std::size_t i = 0; i < last; ++i) {
      auto migrated = db.exec_script(migrations()[i]);
      ASSERT_TRUE(migrated) << migrated.error().message;
      ASSERT_TRUE(db.exec_script("INSERT INTO schema_version (version) VALUES (" +
                                 std::to_string(i + 1) + ")"));
    }
    // As that server wrote them: three gradings of the key (the second by ada), a regrade of
    // one, then one by ada without a key and one with neither (a server without --keys).
    for (int i = 0; i < 6; ++i) {
      auto inserted = db.query(
          "INSERT INTO submissions (id, time_ms, problem, problem_sha256, student, key_name, body, "
          "passed, score, tests_total, tests_passed, tests_failed, failing_inputs, answer, "
          "regrade_of) VALUES ($1, $2, 'p', 'h', $3, $4, '{}', $5, 1.0, 1, 1, 0, '[]', '{}', $6)",
          {new_submission_id(kT0 + i), std::int64_t{kT0 + i},
           i == 1 || i == 4 ? SqlValue(std::string("ada")) : SqlValue(),
           i < 4 ? SqlValue(std::string("canvas")) : SqlValue(), std::int64_t{i == 4 ? 0 : 1},
           i == 3 ? SqlValue(std::string("x")) : SqlValue()});
      ASSERT_TRUE(inserted) << inserted.error().message;
    }
  }
  auto opened = open_store(earlier->url());
  ASSERT_TRUE(opened) << opened.error().message;
  SubmissionStore& store = **opened;
  ASSERT_TRUE(commit_now(store, make_record(kT0 + 10, "p", std::nullopt)));  // key "canvas"
  const RateScope key{RateScope::Kind::kKey, "", "", "canvas"};
  auto window = store.gradings_since(key, kT0, 1000);
  ASSERT_TRUE(window) << window.error().message;
  EXPECT_EQ(window->count, 4);  // the three before and the one after; the regrade does not count
  auto at_cap = store.gradings_since(key, kT0, 2);
  ASSERT_TRUE(at_cap) << at_cap.error().message;
  EXPECT_EQ(at_cap->cap_th_newest, kT0 + 2);  // the newest two: kT0 + 10 and kT0 + 2
  // ada's gradings, with a key and without: both hers, the later one her latest.
  const RateScope ada{RateScope::Kind::kStudentProblem, "ada", "p", ""};
  auto hers = store.gradings_since(ada, kT0, 1000);
  ASSERT_TRUE(hers) << hers.error().message;
  EXPECT_EQ(hers->count, 2);
  auto latest = store.latest_per_student("p");
  ASSERT_TRUE(latest) << latest.error().message;
  ASSERT_EQ(latest->size(), 1U);
  EXPECT_EQ(latest->front().time, kT0 + 4);
  EXPECT_TRUE(latest->front().mistakes.empty());  // kept before mistakes were: none named
  EXPECT_EQ(latest->front().variant, "");         // kept before variants were: as written
  auto stats = store.stats_inputs("p");
  ASSERT_TRUE(stats) << stats.error().message;
  EXPECT_EQ(stats->submissions, 6);  // the regrade left out
  ASSERT_EQ(stats->students.size(), 1U);
  EXPECT_TRUE(stats->students.front().first_passed);  // her keyed grading, kT0 + 1
  EXPECT_FALSE(stats->students.front().latest.passed);
  SubmissionQuery by_ada;
  by_ada.problem = "p";
  by_ada.student = "ada";
  auto page = store.list(by_ada);
  ASSERT_TRUE(page) << page.error().message;
  ASSERT_EQ(page->records.size(), 2U);
  EXPECT_EQ(page->records.front().time, kT0 + 4);  // newest first
  SubmissionQuery everything;
  auto all = store.list(everything);
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(all->records.size(), 7U);
  store.close();
}

TEST(RecordIds, SortByTimeAndDiffer) {
  const std::string a = new_submission_id(1000), b = new_submission_id(1000);
  EXPECT_EQ(a.size(), 28u);
  EXPECT_NE(a, b);
  // Within one millisecond, in the order they were made: the listing's "newest first".
  const std::string c = new_submission_id(1000);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_LT(new_submission_id(999), new_submission_id(1000).substr(0, 12) + "0");
}

}  // namespace
}  // namespace headgrader::store

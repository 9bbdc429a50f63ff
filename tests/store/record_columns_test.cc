// The submissions table's column table (store/record_columns.h) against the schema the
// migrations make, on a real SQLite file and a real PostgreSQL server: every column of the
// table is in it once, so a column added by a migration and forgotten there fails here; and
// the statements made from it read as they were written by hand before.
#include "record_columns.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "store_test_support.h"
#include "submission_store.h"

namespace headgrader::store {
namespace {

using testing::Backend;

class RecordColumnsTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    db_ = testing::TestDatabase::make(GetParam());
    if (!db_) {
      if (HasFailure()) return;
      GTEST_SKIP() << "HEADGRADER_TEST_POSTGRES is not set: run under scripts/with-postgres.sh "
                      "(scripts/test.sh does) to test PostgreSQL";
    }
    auto opened = open_store(db_->url());  // creates and migrates the schema
    ASSERT_TRUE(opened) << opened.error().message;
    (*opened)->close();
  }

  std::unique_ptr<testing::TestDatabase> db_;
};

TEST_P(RecordColumnsTest, EveryColumnOfTheMigratedTableIsInTheTableOnce) {
  auto raw = db_->connect();
  ASSERT_TRUE(raw) << raw.error().message;
  auto found =
      (*raw)->query(GetParam() == Backend::kPostgres
                        ? "SELECT column_name FROM information_schema.columns WHERE table_name = "
                          "'submissions'"
                        : "SELECT name FROM pragma_table_info('submissions')",
                    {});
  ASSERT_TRUE(found) << found.error().message;
  std::vector<std::string> schema;
  for (const SqlRow& row : *found) schema.push_back(row[0].value_or(""));
  std::vector<std::string> table;
  for (const columns::RecordColumn& column : columns::kRecordColumns) {
    table.emplace_back(column.name);
  }
  std::sort(schema.begin(), schema.end());
  std::sort(table.begin(), table.end());
  EXPECT_EQ(table, schema);
}

INSTANTIATE_TEST_SUITE_P(Backends, RecordColumnsTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) { return testing::backend_name(info.param); });

// The lists as the store's statements named them before they were made from the table, and the
// mistakes (migration 7), variant (8) and member (9) columns after them.
TEST(RecordColumns, TheListsReadAsTheStatementsWroteThem) {
  EXPECT_EQ(columns::select_list(),
            "id, time_ms, problem, problem_sha256, student, key_name, body, passed, score, "
            "tests_total, tests_passed, tests_failed, failing_inputs, answer, regrade_of, "
            "idem_scope, idem_key, idem_body_sha256, lms_context, lms_resource_link, mistakes, "
            "variant, member");
  EXPECT_EQ(columns::list_select_list(),
            "id, time_ms, problem, problem_sha256, student, key_name, '', passed, score, "
            "tests_total, tests_passed, tests_failed, failing_inputs, '', regrade_of, "
            "idem_scope, idem_key, idem_body_sha256, lms_context, lms_resource_link, mistakes, "
            "variant, member");
  // The integrity route's: the matrices without the answers.
  EXPECT_EQ(columns::body_select_list(),
            "id, time_ms, problem, problem_sha256, student, key_name, body, passed, score, "
            "tests_total, tests_passed, tests_failed, failing_inputs, '', regrade_of, "
            "idem_scope, idem_key, idem_body_sha256, lms_context, lms_resource_link, mistakes, "
            "variant, member");
  EXPECT_EQ(columns::insert_list(), "(" + columns::select_list() + ")");
}

// A tag is read only with its scope and key; its body hash may be NULL.
TEST(RecordColumns, AnIdempotencyTagNeedsItsScopeAndKey) {
  SqlRow row(columns::kRecordColumnCount, std::nullopt);
  const auto at = [&](std::string_view name) -> std::optional<std::string>& {
    for (std::size_t i = 0; i < columns::kRecordColumns.size(); ++i) {
      if (columns::kRecordColumns[i].name == name) return row[i];
    }
    ADD_FAILURE() << "no column " << name;
    return row[0];
  };
  at("idem_key") = "k";
  EXPECT_FALSE(columns::record(row).idempotency);
  at("idem_scope") = "";
  ASSERT_TRUE(columns::record(row).idempotency);
  EXPECT_EQ(columns::record(row).idempotency->key, "k");
  EXPECT_EQ(columns::record(row).idempotency->body_sha256, "");
  at("idem_key") = std::nullopt;
  EXPECT_FALSE(columns::record(row).idempotency);
}

}  // namespace
}  // namespace headgrader::store

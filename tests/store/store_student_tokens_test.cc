// Student tokens (store/student_tokens.h) on a real SQLite file and a real PostgreSQL server:
// found by their hash with what they were issued with, until they expire.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "store_test_support.h"
#include "submission_store.h"

namespace headgrader::store {
namespace {

using testing::kT0;
using testing::StoreTest;

TEST_P(StoreTest, StudentTokensAreFoundByHashUntilTheyExpire) {
  StudentToken token{
      std::string(64, 'c'), "https://lms#42",   "p",        "https://lms",      "client", "ctx",
      std::nullopt,         "https://lms/li/9", kT0 + 1000, R"({"name":"Ada"})"};
  ASSERT_TRUE(store_->put_student_token(token));
  auto found = store_->find_student_token(token.token_sha256, kT0 + 999);
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->student, "https://lms#42");
  EXPECT_EQ((*found)->context, "ctx");
  EXPECT_FALSE((*found)->resource_link);
  EXPECT_EQ((*found)->lineitem, "https://lms/li/9");
  EXPECT_EQ((*found)->details, R"({"name":"Ada"})");
  EXPECT_FALSE(store_->find_student_token(token.token_sha256, kT0 + 1000)->has_value());
  EXPECT_FALSE(store_->find_student_token(std::string(64, 'd'), kT0)->has_value());
}

}  // namespace
}  // namespace headgrader::store

// Single-use values (store/single_use_values.h: LTI nonces and states) on a real SQLite file
// and a real PostgreSQL server: true only the first time, until they expire.
#include <gtest/gtest.h>

#include "store_test_support.h"
#include "submission_store.h"

namespace headgrader::store {
namespace {

using testing::kT0;
using testing::StoreTest;

TEST_P(StoreTest, SingleUseValuesAreTrueOnlyTheFirstTime) {
  auto first = store_->use_once("nonce:1", kT0 + 1000, kT0);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(*first);
  EXPECT_FALSE(*store_->use_once("nonce:1", kT0 + 1000, kT0 + 1));
  EXPECT_TRUE(*store_->use_once("nonce:1", kT0 + 5000, kT0 + 1000));  // the earlier expired

  ASSERT_TRUE(store_->put_once("state:a", kT0 + 1000));
  EXPECT_FALSE(*store_->take_once("state:b", kT0));
  EXPECT_TRUE(*store_->take_once("state:a", kT0 + 999));
  EXPECT_FALSE(*store_->take_once("state:a", kT0 + 999));
  ASSERT_TRUE(store_->put_once("state:c", kT0 + 1000));
  EXPECT_FALSE(*store_->take_once("state:c", kT0 + 1000));  // expired
}

}  // namespace
}  // namespace headgrader::store

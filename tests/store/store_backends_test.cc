// The backends every test of the store interface (TEST_P(StoreTest, …), in
// tests/store/store_*_test.cc) runs against: a real SQLite file and a real PostgreSQL server
// (scripts/with-postgres.sh). Instantiated here once for all their files: gtest gathers a
// suite's tests from every file, and a second instantiation would run each of them twice.
#include <gtest/gtest.h>

#include "store_test_support.h"

namespace headgrader::store {
namespace {

using testing::Backend;
using testing::StoreTest;

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) { return testing::backend_name(info.param); });

}  // namespace
}  // namespace headgrader::store

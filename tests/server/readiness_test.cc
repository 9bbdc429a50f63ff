// GET /readyz in process (API.md §17): ready with problems and a store that answers, 503 with
// the reason when the store does not (SQLite: the file made unwritable, moved away), ready
// again once it is restored, on the same router and store (no restart). The real server and a
// PostgreSQL server stopped and started are in tests/server/readiness_e2e_test.cc.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>

#include "part1_router.h"
#include "problem_catalog.h"
#include "router.h"
#include "service.h"
#include "store_test_support.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using store::testing::Backend;

Routed ask_ready(const Router& router, http::verb verb = http::verb::get) {
  Request request{verb, "/readyz", 11};
  return router.route(request);
}

TEST(Readiness, WithoutAStoreTheServerIsReadyOnceItsProblemsAreLoaded) {
  const testing::Part1Router part1(testing::bundled_problems());
  const Routed routed = ask_ready(part1.router());
  EXPECT_EQ(routed.response.result(), http::status::ok);
  EXPECT_EQ(routed.response.body(), R"({"ready":true})");
  EXPECT_EQ(routed.response[http::field::content_type], "application/json");
}

TEST(Readiness, HeadIsAnsweredWithTheHeadersAlone) {
  const testing::Part1Router part1(testing::bundled_problems());
  const Routed routed = ask_ready(part1.router(), http::verb::head);
  EXPECT_EQ(routed.response.result(), http::status::ok);
  EXPECT_TRUE(routed.response.body().empty());
  EXPECT_EQ(routed.response[http::field::content_length], "14");  // {"ready":true}
}

TEST(Readiness, AServerWithNoProblemIsNotReady) {
  const testing::Part1Router part1(ProblemSet::of({}));
  const Routed routed = ask_ready(part1.router());
  EXPECT_EQ(routed.response.result(), http::status::service_unavailable);
  EXPECT_EQ(routed.response.body(), R"({"ready":false,"reason":"no problem is loaded"})");
}

// A router over the bundled problems and a store of the parameter's backend.
class StoreReadiness : public store::testing::OpenStoreTest {
 protected:
  void SetUp() override {
    OpenStoreTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    service_.records.store = store_.get();
  }
  Routed ask() const { return ask_ready(router_); }

  ProblemCatalog catalog_{testing::bundled_problems()};
  Service service_{&catalog_};
  Router router_{service_};
};

TEST_P(StoreReadiness, AStoreThatAnswersIsReady) {
  const Result<bool> ready = store_->ready();
  EXPECT_TRUE(ready) << ready.error().message;
  const Routed routed = ask();
  EXPECT_EQ(routed.response.result(), http::status::ok) << routed.response.body();
  EXPECT_EQ(routed.response.body(), R"({"ready":true})");
}

TEST_P(StoreReadiness, AnUnwritableSqliteFileIsNotReadyUntilItIsWritableAgain) {
  if (GetParam() != Backend::kSqlite) GTEST_SKIP() << "a SQLite file's own";
  const std::filesystem::path file = db_->folder() / "store.db";
  ASSERT_EQ(::chmod(file.c_str(), 0444), 0);
  const Routed refused = ask();
  EXPECT_EQ(refused.response.result(), http::status::service_unavailable);
  const Json body = Json::parse(refused.response.body());
  EXPECT_EQ(body["ready"], false);
  EXPECT_EQ(body["reason"], "the store: the SQLite store " + file.string() +
                                " cannot be written (its mode, owner or file system refuses); "
                                "gradings could not be kept");
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  EXPECT_EQ(ask().response.result(), http::status::ok);
}

TEST_P(StoreReadiness, ASqliteFileMovedAwayIsNotReadyUntilItIsBack) {
  if (GetParam() != Backend::kSqlite) GTEST_SKIP() << "a SQLite file's own";
  const std::filesystem::path file = db_->folder() / "store.db";
  const std::filesystem::path aside = db_->folder() / "aside.db";
  std::filesystem::rename(file, aside);
  const Routed refused = ask();
  EXPECT_EQ(refused.response.result(), http::status::service_unavailable);
  EXPECT_NE(Json::parse(refused.response.body())["reason"].get<std::string>().find(
                "was deleted or replaced while the server ran"),
            std::string::npos)
      << refused.response.body();
  EXPECT_FALSE(std::filesystem::exists(file)) << "the probe created a new, empty store";
  std::filesystem::rename(aside, file);
  EXPECT_EQ(ask().response.result(), http::status::ok);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreReadiness,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) { return store::testing::backend_name(info.param); });

}  // namespace
}  // namespace headgrader::server

// A problem for each student (API.md §15) against the real binaries, on SQLite and PostgreSQL:
// the variant a student is shown, the grading against it and its record, stats by variant, a
// regrade on each record's own variant, a restart and a new secret, a copied head seen by
// integrity, a secret file that stops the server; and pools: each student's member shown,
// graded and recorded under the pool, regraded on it, a pool refused or held by its members. The
// variants are checked against a relabeling written out here entry by entry from the variant id's
// definition (headgrader/variant.h), not against the server's own code.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "headgrader/report.h"
#include "operations_support.h"
#include "server_harness.h"
#include "store_test_support.h"
#include "test_support.h"
#include "variant_id_support.h"

namespace headgrader::server {
namespace {

using namespace harness;
using store::testing::Backend;
using store::testing::TestDatabase;
namespace fs = std::filesystem;
using variant_testing::read_variant_id;
using variant_testing::reference_in_student_coordinates;
using variant_testing::VariantIds;

constexpr std::string_view kProblemPath = "/v1/problems/consonant-anywhere";

// Private names differ from every other test file's: a unity build compiles several together.
void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// The test's problem: the handout's Exercise 2 with every relabeling on, two scales.
constexpr double kScales[] = {1.0, 2.0};

// The reference in the student's coordinates, computed by the test (variant_id_support.h).
Json student_head(const Json& reference, const VariantIds& r) {
  return reference_in_student_coordinates(reference, r, kScales);
}

class Variants : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    db_ = TestDatabase::make(GetParam());
    if (!db_) {
      if (HasFailure()) return;
      GTEST_SKIP() << "HEADGRADER_TEST_POSTGRES is not set: run under scripts/with-postgres.sh";
    }
    root_ = fs::temp_directory_path() / ("headgrader-variants-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(counter_++));
    fs::remove_all(root_);
    fs::create_directories(root_ / "problems");
    std::ifstream in(HEADGRADER_SOURCE_DIR "/problems/consonant-anywhere.json");
    file_ = Json::parse(in);
    file_["statement"] = "Output [0, 1] once a consonant has occurred, else [1, 0].";
    file_["feature_names"] = {"vowel", "consonant"};
    file_["variants"] = {
        {"permute_features", true}, {"permute_outputs", true}, {"feature_scales", {1, 2}}};
    write_text(root_ / "problems" / "consonant-anywhere.json", file_.dump(2));
    write_text(root_ / "secret", "a course's secret of thirty-two or more bytes\n");
    write_text(root_ / "other-secret", "another term, another secret of 32+ bytes");
    staff_ = testing::add_key(root_ / "keys.json", "ta", "staff");
    lms_ = testing::add_key(root_ / "keys.json", "canvas", "lms");
    ASSERT_EQ(lms_.size(), 43u);
  }
  void TearDown() override {
    server_.reset();
    std::error_code ignored;
    if (!root_.empty()) fs::remove_all(root_, ignored);
  }
  std::uint16_t start(const std::string& secret = "secret") {
    server_.reset();
    server_ = std::make_unique<ServerProcess>(std::vector<std::string>{
        "--port", "0", "--address", "127.0.0.1", "--problems", (root_ / "problems").string(),
        "--keys", (root_ / "keys.json").string(), "--store", db_->url(), "--variant-secret",
        (root_ / secret).string()});
    return server_->wait_listening();
  }
  Json shown_to(std::uint16_t port, const std::string& student) {
    const HttpResponse got =
        call(port, "GET", std::string(kProblemPath) + "?student=" + student, lms_);
    EXPECT_EQ(got.result_int(), 200) << got.body();
    return Json::parse(got.body());
  }
  Json grade(std::uint16_t port, Json head, const std::string& student) {
    head["student"] = student;
    const HttpResponse got =
        call(port, "POST", std::string(kProblemPath) + "/grade", lms_, head.dump());
    EXPECT_EQ(got.result_int(), 200) << got.body();
    return Json::parse(got.body());
  }
  // Two students whose variants order the outputs differently, so that each one's head
  // answers the other's variant with the outputs swapped.
  std::pair<std::string, std::string> two_students(std::uint16_t port) {
    std::map<std::vector<int>, std::string> by_outputs;
    for (int i = 0; i < 64 && by_outputs.size() < 2; ++i) {
      const std::string student = "student-" + std::to_string(i);
      by_outputs.emplace(read_variant_id(shown_to(port, student)["variant"]).outputs, student);
    }
    EXPECT_EQ(by_outputs.size(), 2u);
    return {by_outputs.begin()->second, by_outputs.rbegin()->second};
  }

  static inline int counter_ = 0;
  std::unique_ptr<TestDatabase> db_;
  fs::path root_;
  Json file_;
  std::string staff_, lms_;
  std::unique_ptr<ServerProcess> server_;
};

TEST_P(Variants, EachStudentIsShownTheirRelabelingOfTheProblemAndNoOneTheReference) {
  const std::uint16_t port = start();
  const Json written = Json::parse(call(port, "GET", std::string(kProblemPath)).body());
  EXPECT_FALSE(written.contains("variant"));
  EXPECT_EQ(written["W_E"], file_["W_E"]);
  for (const std::string student : {"ada", "bob", "cy"}) {
    const Json shown = shown_to(port, student);
    ASSERT_TRUE(shown.contains("variant")) << shown.dump();
    EXPECT_FALSE(shown.contains("reference"));
    const VariantIds r = read_variant_id(shown["variant"]);
    ASSERT_EQ(r.features.size(), 2u);
    ASSERT_EQ(r.scales.size(), 2u);
    ASSERT_EQ(r.outputs.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(shown["feature_names"][i], file_["feature_names"][r.features[i]]);
      for (std::size_t t = 0; t < 26; ++t) {
        EXPECT_EQ(shown["W_E"][i][t].get<double>(),
                  kScales[r.scales[i]] * file_["W_E"][r.features[i]][t].get<double>());
      }
    }
    EXPECT_EQ(shown_to(port, student)["variant"], shown["variant"]) << "the same every time";
  }
  // Another student's variant needs an lms or staff key; a wrong credential is refused.
  EXPECT_EQ(call(port, "GET", std::string(kProblemPath) + "?student=ada").result_int(), 401);
  EXPECT_EQ(call(port, "GET", std::string(kProblemPath), "not-a-key").result_int(), 401);
  EXPECT_EQ(call(port, "GET", std::string(kProblemPath) + "?student=%zz", lms_).result_int(), 400);
}

TEST_P(Variants, EachPassesWithTheirOwnTransformedReferenceFailsWithTheOthersAndIsKeptSo) {
  std::uint16_t port = start();
  const auto [ada, bob] = two_students(port);
  const Json reference = file_["reference"];
  const std::string ada_variant = shown_to(port, ada)["variant"];
  const std::string bob_variant = shown_to(port, bob)["variant"];
  const Json ada_head = student_head(reference, read_variant_id(ada_variant));
  const Json bob_head = student_head(reference, read_variant_id(bob_variant));

  const Json ada_own = grade(port, ada_head, ada);
  EXPECT_EQ(ada_own["passed"], true) << ada_own.dump();
  EXPECT_EQ(ada_own["variant"], ada_variant);
  const Json ada_with_bobs = grade(port, bob_head, ada);
  EXPECT_EQ(ada_with_bobs["passed"], false);
  // The answer is in the student's coordinates: bob's variant orders the outputs (1, 0)
  // (two_students), so where the problem as written expects [1, 0] he is expected [0, 1].
  ASSERT_EQ(read_variant_id(bob_variant).outputs, (std::vector<int>{1, 0}));
  const Json bob_with_adas = grade(port, ada_head, bob);
  EXPECT_EQ(bob_with_adas["passed"], false);
  const Json& example = bob_with_adas["examples"][0];  // "eaeia": no consonant
  EXPECT_EQ(example["input"], "eaeia");
  EXPECT_EQ(example["expected"][0], Json({0, 1})) << example.dump();
  const Json bob_own = grade(port, bob_head, bob);
  EXPECT_EQ(bob_own["passed"], true) << bob_own.dump();
  EXPECT_EQ(bob_own["variant"], bob_variant);

  // The record names the variant; stats count students by it.
  const HttpResponse listed = call(port, "GET", "/v1/submissions?student=" + ada, staff_);
  const Json records = Json::parse(listed.body())["submissions"];
  ASSERT_EQ(records.size(), 2u) << listed.body();
  for (const Json& record : records) EXPECT_EQ(record["variant"], ada_variant);
  const Json stats =
      Json::parse(call(port, "GET", std::string(kProblemPath) + "/stats", staff_).body());
  std::map<std::string, std::pair<int, int>> by_variant;
  for (const Json& v : stats["variants"]) {
    by_variant[v["variant"]] = {v["students"].get<int>(), v["students_passed"].get<int>()};
  }
  // ada's latest grading failed (she sent bob's head last), bob's passed.
  EXPECT_EQ(by_variant[ada_variant], std::make_pair(1, 0)) << stats.dump();
  EXPECT_EQ(by_variant[bob_variant], std::make_pair(1, 1)) << stats.dump();

  // A regrade grades each latest record on its own variant: nothing changes (on the problem
  // as written bob's head, its outputs swapped, would fail).
  const HttpResponse regraded =
      call(port, "POST", std::string(kProblemPath) + "/regrade", staff_, "{}");
  ASSERT_EQ(regraded.result_int(), 200) << regraded.body();
  EXPECT_EQ(Json::parse(regraded.body())["regraded"], 2);
  EXPECT_EQ(Json::parse(regraded.body())["changed"], Json::array()) << regraded.body();

  // A restart with the same secret: the same variants. A new secret reshuffles the class.
  port = start();
  EXPECT_EQ(shown_to(port, ada)["variant"], ada_variant);
  EXPECT_EQ(shown_to(port, bob)["variant"], bob_variant);
  std::map<std::string, std::string> before;
  for (int i = 0; i < 8; ++i) {
    const std::string student = "s" + std::to_string(i);
    before[student] = shown_to(port, student)["variant"];
  }
  port = start("other-secret");
  int moved = 0;
  for (const auto& [student, variant] : before)
    moved += shown_to(port, student)["variant"] != variant;
  EXPECT_GT(moved, 0);
}

TEST_P(Variants, EditingTheMatricesKeepsEachStudentsVariant) {
  std::uint16_t port = start();
  std::map<std::string, std::string> before;
  for (int i = 0; i < 8; ++i) {
    const std::string student = "s" + std::to_string(i);
    before[student] = shown_to(port, student)["variant"];
  }
  // The embedding's values change (a stronger consonant feature); its size does not.
  for (Json& entry : file_["W_E"][1]) entry = entry.get<double>() * 3;
  file_["reference"]["W_k"] = {{0, 5.0 / 3}};
  file_["reference"]["W_V"] = {{1, 0}, {0, 1.0 / 3}};
  const HttpResponse put = call(port, "PUT", std::string(kProblemPath), staff_, file_.dump());
  ASSERT_EQ(put.result_int(), 200) << put.body();
  for (const auto& [student, variant] : before) {
    EXPECT_EQ(shown_to(port, student)["variant"], variant) << student;
  }
}

TEST_P(Variants, IntegrityFindsAHeadCopiedFromAnotherVariant) {
  const std::uint16_t port = start();
  const auto [ada, bob] = two_students(port);
  const Json ada_head =
      student_head(file_["reference"], read_variant_id(shown_to(port, ada)["variant"]));
  EXPECT_EQ(grade(port, ada_head, ada)["passed"], true);
  EXPECT_EQ(grade(port, ada_head, bob)["passed"], false);  // bob sent ada's head as it was
  const HttpResponse got = call(port, "GET", std::string(kProblemPath) + "/integrity", staff_);
  ASSERT_EQ(got.result_int(), 200) << got.body();
  const Json report = Json::parse(got.body());
  ASSERT_EQ(report["other_variant"].size(), 1u) << report.dump();
  EXPECT_EQ(report["other_variant"][0]["student"], bob);
  EXPECT_EQ(report["other_variant"][0]["matches_student"], ada);
  EXPECT_FALSE(got.body().find("\"reference\"") != std::string::npos);
}

// A pool of the handout's two Exercise 2 problems, beside them.
TEST_P(Variants, EachStudentIsGivenOneMemberOfAPoolGradedAndRecordedUnderThePool) {
  write_text(root_ / "problems" / "exercise-2.json",
             R"({"id": "exercise-2", "title": "Exercise 2, either part",
                 "pool": ["consonant-anywhere", "consonant-proportion"]})");
  fs::copy_file(fs::path(HEADGRADER_SOURCE_DIR "/problems/consonant-proportion.json"),
                root_ / "problems" / "consonant-proportion.json");
  const std::uint16_t port = start();
  const Json listed = Json::parse(call(port, "GET", "/v1/problems").body());
  bool found = false;
  for (const Json& p : listed["problems"]) {
    if (p["id"] != "exercise-2") continue;
    found = true;
    EXPECT_EQ(p["pool"], Json({"consonant-anywhere", "consonant-proportion"}));
    EXPECT_EQ(p["submit"], Json({"W_q", "W_k", "W_V"}));
  }
  EXPECT_TRUE(found) << listed.dump();
  EXPECT_EQ(Json::parse(call(port, "GET", "/v1/problems/exercise-2").body())["pool"].size(), 2u);

  // Students given each member, found by asking; the same member every time.
  std::map<std::string, std::string> student_of;  // member -> a student given it
  std::map<std::string, std::string> variant_of;  // member -> that student's variant
  for (int i = 0; i < 40 && student_of.size() < 2; ++i) {
    const std::string student = "p" + std::to_string(i);
    const HttpResponse got = call(port, "GET", "/v1/problems/exercise-2?student=" + student, lms_);
    ASSERT_EQ(got.result_int(), 200) << got.body();
    const Json shown = Json::parse(got.body());
    EXPECT_EQ(shown["pool"], "exercise-2");
    EXPECT_FALSE(shown.contains("reference"));
    if (student_of.emplace(shown["id"].get<std::string>(), student).second) {
      variant_of[shown["id"]] = shown.value("variant", "");
    }
  }
  ASSERT_EQ(student_of.size(), 2u);
  // Each passes with their own member's reference, in their variant of it (consonant-anywhere
  // has variants here, the proportion problem none), and fails with the other member's: the
  // proportion problem's head is not the anywhere problem's.
  const auto reference_of = [](const std::string& id) {
    std::ifstream in(HEADGRADER_SOURCE_DIR "/problems/" + id + ".json");
    return Json::parse(in)["reference"];
  };
  for (const auto& [member, student] : student_of) {
    const std::string other =
        member == "consonant-anywhere" ? "consonant-proportion" : "consonant-anywhere";
    Json wrong = reference_of(other);
    wrong["student"] = student;
    const HttpResponse failed =
        call(port, "POST", "/v1/problems/exercise-2/grade", lms_, wrong.dump());
    EXPECT_EQ(Json::parse(failed.body())["passed"], false) << member << failed.body();
    EXPECT_EQ(variant_of[member].empty(), member == "consonant-proportion");
    Json right = variant_of[member].empty()
                     ? reference_of(member)
                     : student_head(reference_of(member), read_variant_id(variant_of[member]));
    right["student"] = student;
    const HttpResponse passed =
        call(port, "POST", "/v1/problems/exercise-2/grade", lms_, right.dump());
    ASSERT_EQ(passed.result_int(), 200) << passed.body();
    EXPECT_EQ(Json::parse(passed.body())["passed"], true) << member << passed.body();
    const Json records = Json::parse(
        call(port, "GET", "/v1/submissions?student=" + student, staff_).body())["submissions"];
    ASSERT_EQ(records.size(), 2u);
    for (const Json& record : records) {
      EXPECT_EQ(record["problem"], "exercise-2");
      EXPECT_EQ(record["member"], member);
    }
  }
  // Without a student there is no member to grade.
  const HttpResponse anonymous = call(port, "POST", "/v1/problems/exercise-2/grade", lms_,
                                      reference_of("consonant-anywhere").dump());
  EXPECT_EQ(anonymous.result_int(), 400) << anonymous.body();
  EXPECT_EQ(Json::parse(anonymous.body())["error"]["field"], "student");
  // The pool's stats count both students; a regrade grades each on their member: no change.
  const Json stats = Json::parse(call(port, "GET", "/v1/problems/exercise-2/stats", staff_).body());
  EXPECT_EQ(stats["students"], 2);
  EXPECT_EQ(stats["students_passed"], 2);
  const Json regraded =
      Json::parse(call(port, "POST", "/v1/problems/exercise-2/regrade", staff_, "{}").body());
  EXPECT_EQ(regraded["regraded"], 2) << regraded.dump();
  EXPECT_EQ(regraded["changed"], Json::array()) << regraded.dump();

  // A member goes only once the pool lets go of it; a pool of a missing problem is refused.
  const HttpResponse held = call(port, "DELETE", "/v1/problems/consonant-proportion", staff_);
  EXPECT_EQ(held.result_int(), 409) << held.body();
  EXPECT_EQ(Json::parse(held.body())["error"]["code"], "problem_in_pool");
  const HttpResponse bad = call(port, "PUT", "/v1/problems/exercise-3", staff_,
                                R"({"id": "exercise-3", "title": "t", "pool": ["nope"]})");
  EXPECT_EQ(bad.result_int(), 422) << bad.body();
  EXPECT_NE(bad.body().find("pool[0]"), std::string::npos) << bad.body();
  const HttpResponse smaller =
      call(port, "PUT", "/v1/problems/exercise-2", staff_,
           R"({"id": "exercise-2", "title": "Exercise 2", "pool": ["consonant-anywhere"]})");
  EXPECT_EQ(smaller.result_int(), 200) << smaller.body();
  EXPECT_EQ(call(port, "DELETE", "/v1/problems/consonant-proportion", staff_).result_int(), 204);
}

INSTANTIATE_TEST_SUITE_P(Backends, Variants,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& info) { return store::testing::backend_name(info.param); });

// A secret that cannot keep the variants unguessable stops the server, naming the file.
TEST(VariantSecret, AMissingOrShortSecretFileStopsTheServerNamingIt) {
  const fs::path root =
      fs::temp_directory_path() / ("headgrader-secret-" + std::to_string(::getpid()));
  fs::create_directories(root);
  write_text(root / "short", std::string(31, 'x') + "\n");  // 31 bytes once its line break goes
  for (const fs::path& secret : {root / "missing", root / "short"}) {
    ServerProcess server({"--port", "0", "--store", "none", "--variant-secret", secret.string()});
    const ExitStatus status = server.wait();
    EXPECT_TRUE(status.exited);
    EXPECT_EQ(status.code, 1);
    const std::string err = server.stderr_text();
    EXPECT_NE(err.find("--variant-secret " + secret.string()), std::string::npos) << err;
    EXPECT_NE(err.find("not starting"), std::string::npos) << err;
  }
  // From the environment as API.md names it.
  ::setenv("HEADGRADER_VARIANT_SECRET_FILE", (root / "short").c_str(), 1);
  ServerProcess from_env({"--port", "0", "--store", "none"});
  ::unsetenv("HEADGRADER_VARIANT_SECRET_FILE");
  EXPECT_EQ(from_env.wait().code, 1);
  EXPECT_NE(from_env.stderr_text().find("shorter than the 32"), std::string::npos);
  std::error_code ignored;
  fs::remove_all(root, ignored);
}

}  // namespace
}  // namespace headgrader::server

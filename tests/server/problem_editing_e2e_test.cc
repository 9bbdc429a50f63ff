// Problems added, broken, fixed and removed while the real server serves (API.md §9): the
// folder watched, SIGHUP, PUT and DELETE, and a path's id that is not a problem id refused
// before anything is read or written.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "course_staff_support.h"
#include "server_harness.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::kHandoutSolution;

using namespace std::chrono_literals;
using namespace harness;
using course_staff_testing::KeyedServer;
using course_staff_testing::read_file;
using course_staff_testing::within;
using course_staff_testing::write_file;
namespace fs = std::filesystem;

TEST_F(KeyedServer, AProblemAddedBrokenFixedAndRemovedOnDiskIsServedWithinTwoSeconds) {
  const fs::path copy = w_.problems() / "copy-one.json";
  std::string text = read_file(w_.problems() / "consonant-anywhere.json");
  text.replace(text.find("consonant-anywhere"), std::string("consonant-anywhere").size(),
               "copy-one");
  write_file(copy, text);
  EXPECT_TRUE(
      within(2s, [&] { return call(port_, "GET", "/v1/problems/copy-one").result_int() == 200; }));

  // Broken: the old set goes on serving and the defect is shown.
  write_file(copy, "{\"id\": \"copy-one\"");
  EXPECT_TRUE(within(2s, [&] {
    const Json status = Json::parse(call(port_, "GET", "/v1/problems/status", staff_).body());
    return !status["defects"].empty();
  }));
  const Json status = Json::parse(call(port_, "GET", "/v1/problems/status", staff_).body());
  EXPECT_TRUE(status["defects"][0].get<std::string>().starts_with(copy.string() + ": "))
      << status.dump();
  EXPECT_EQ(call(port_, "POST", "/v1/problems/copy-one/grade", lms_, kHandoutSolution).result_int(),
            200);
  EXPECT_NE(server_->stderr_text().find("the problems loaded before go on serving"),
            std::string::npos);

  // Removed: gone, and the defects are cleared.
  fs::remove(copy);
  EXPECT_TRUE(
      within(2s, [&] { return call(port_, "GET", "/v1/problems/copy-one").result_int() == 404; }));
  EXPECT_EQ(Json::parse(call(port_, "GET", "/v1/problems/status", staff_).body())["defects"],
            Json::array());
}

TEST_F(KeyedServer, PutCreatesOrReplacesAValidProblemAndRefusesAnInvalidOne) {
  std::string text = read_file(w_.problems() / "consonant-anywhere.json");
  std::string copy = text;
  copy.replace(copy.find("consonant-anywhere"), std::string("consonant-anywhere").size(),
               "new-one");
  EXPECT_EQ(call(port_, "PUT", "/v1/problems/new-one", lms_, copy).result_int(), 403);
  const HttpResponse created = call(port_, "PUT", "/v1/problems/new-one", staff_, copy);
  EXPECT_EQ(created.result_int(), 201);
  EXPECT_EQ(Json::parse(created.body())["id"], "new-one");
  EXPECT_EQ(read_file(w_.problems() / "new-one.json"), copy);
  EXPECT_EQ(call(port_, "GET", "/v1/problems/new-one").result_int(), 200);
  EXPECT_EQ(call(port_, "PUT", "/v1/problems/new-one", staff_, copy).result_int(), 200);

  // The id in the body must be the one in the path; nothing is written then.
  const HttpResponse mismatch = call(port_, "PUT", "/v1/problems/other-id", staff_, copy);
  EXPECT_EQ(mismatch.result_int(), 422);
  EXPECT_EQ(code_of(mismatch), "invalid_problem");
  EXPECT_FALSE(Json::parse(mismatch.body())["defects"].empty());
  EXPECT_FALSE(fs::exists(w_.problems() / "other-id.json"));

  const HttpResponse bad =
      call(port_, "PUT", "/v1/problems/new-one", staff_, R"({"id": "new-one"})");
  EXPECT_EQ(bad.result_int(), 422);
  const Json defects = Json::parse(bad.body())["defects"];
  EXPECT_EQ(defects[0], (Json{{"field", "title"}, {"message", "is missing"}}));
  EXPECT_EQ(read_file(w_.problems() / "new-one.json"), copy);  // the old file stays
  EXPECT_EQ(call(port_, "PUT", "/v1/problems/new-one", staff_, copy, {"Content-Type: text/plain"})
                .result_int(),
            415);
}

TEST_F(KeyedServer, DeleteRemovesTheFileAndAnUnknownProblemIs404) {
  EXPECT_EQ(call(port_, "DELETE", "/v1/problems/first-position", lms_).result_int(), 403);
  EXPECT_EQ(call(port_, "DELETE", "/v1/problems/first-position", staff_).result_int(), 204);
  EXPECT_FALSE(fs::exists(w_.problems() / "first-position.json"));
  EXPECT_EQ(call(port_, "GET", "/v1/problems/first-position").result_int(), 404);
  EXPECT_EQ(call(port_, "DELETE", "/v1/problems/first-position", staff_).result_int(), 404);
  const HttpResponse wrong = call(port_, "PATCH", "/v1/problems/consonant-anywhere", staff_);
  EXPECT_EQ(wrong.result_int(), 405);
  EXPECT_EQ(wrong[http::field::allow], "GET, HEAD, PUT, DELETE");
  EXPECT_EQ(Json::parse(wrong.body())["error"]["message"],
            "PATCH is not allowed here; use GET, PUT or DELETE");
}

TEST_F(KeyedServer, SighupLoadsTheFolderAgain) {
  std::string text = read_file(w_.problems() / "consonant-anywhere.json");
  text.replace(text.find("\"title\": \""), 10, "\"title\": \"Renamed: ");
  write_file(w_.problems() / "consonant-anywhere.json", text);
  server_->signal(SIGHUP);
  EXPECT_TRUE(within(2s, [&] {
    return call(port_, "GET", "/v1/problems/consonant-anywhere").body().find("Renamed: ") !=
           std::string::npos;
  }));
}

// A path's problem id is [a-z0-9-]+ or names nothing: a decoded "/" (..%2Fkeys, an absolute
// %2Ftmp%2F…), "..", upper case and an over-long id are 404 on every route that takes an id,
// before anything is read or written; the folder, keys.json and the absolute path are as
// they were.
TEST_F(KeyedServer, APathIdThatIsNotAProblemIdIs404AndNothingIsWritten) {
  const std::string original = read_file(w_.problems() / "consonant-anywhere.json");
  const auto with_id = [&](const std::string& id) {
    std::string copy = original;
    copy.replace(copy.find("consonant-anywhere"), std::string("consonant-anywhere").size(), id);
    return copy;
  };
  const fs::path outside = w_.root() / "outside" / "abs";
  fs::create_directories(outside.parent_path());
  std::string encoded_outside;
  for (const char c : outside.string())
    encoded_outside += c == '/' ? std::string("%2F") : std::string(1, c);
  const std::string keys_before = read_file(w_.keys());
  const auto listing = [&] {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(w_.problems())) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  };
  const std::vector<std::string> before = listing();
  const std::string long_id(300, 'a');
  // The path's id, and the id the body claims (what the base name would be).
  const std::vector<std::pair<std::string, std::string>> attacks = {
      {"..%2Fkeys", "keys"},
      {encoded_outside, "abs"},
      {"..", "x"},
      {"%2E%2E", "x"},
      {"Consonant-Anywhere", "consonant-anywhere"},
      {"consonant%2Danywhere%00", "consonant-anywhere"},
      {long_id, long_id}};
  for (const auto& [path_id, body_id] : attacks) {
    const std::string problem = "/v1/problems/" + path_id;
    const HttpResponse put = call(port_, "PUT", problem, staff_, with_id(body_id));
    EXPECT_EQ(put.result_int(), 404) << path_id << ": " << put.body();
    EXPECT_EQ(put.result_int() == 404 ? code_of(put) : "", "not_found") << path_id;
    for (const auto& [method, target] :
         std::vector<std::pair<std::string, std::string>>{{"GET", problem},
                                                          {"DELETE", problem},
                                                          {"POST", problem + "/grade"},
                                                          {"POST", problem + "/check-steps"},
                                                          {"GET", problem + "/stats"},
                                                          {"POST", problem + "/regrade"}}) {
      const HttpResponse answer =
          call(port_, method, target, staff_, method == "POST" ? kHandoutSolution : "");
      EXPECT_EQ(answer.result_int(), 404) << method << " " << target;
    }
  }
  EXPECT_EQ(listing(), before);
  EXPECT_EQ(read_file(w_.keys()), keys_before);
  EXPECT_FALSE(fs::exists(outside.string() + ".json"));
  EXPECT_TRUE(fs::is_empty(outside.parent_path()));
  EXPECT_FALSE(fs::exists(w_.root() / "x.json"));
  // The server still starts on its keys and serves the three problems.
  EXPECT_EQ(call(port_, "GET", "/v1/problems/status", staff_).result_int(), 200);
}

}  // namespace
}  // namespace headgrader::server

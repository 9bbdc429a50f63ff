// The one route table (server/routes/route_table.h): each row is what docs/openapi.json describes,
// every path it names matches its own row, and the 404 lists the routes that exist.
#include "route_table.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "openapi_document.h"
#include "part1_router.h"
#include "router.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

// "/v1/problems/{id}/grade" with its parameter filled in.
std::string concrete_path(std::string_view pattern) {
  std::string path;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '{') {
      path += "x-1";
      i = pattern.find('}', i);
    } else if (pattern[i] == '*') {
      path += "app.js";
    } else {
      path += pattern[i];
    }
  }
  return path;
}

TEST(RouteTable, EveryDocumentedRowIsTheOpenApiDocumentsPathWithItsMethods) {
  const Json document = Json::parse(openapi_document());
  std::set<std::string> documented, tabled;
  for (const auto& [path, item] : document["paths"].items()) {
    for (const auto& [method, operation] : item.items()) {
      if (method != "parameters") documented.insert(method + " " + path);
    }
  }
  for (const RouteRow& row : route_table()) {
    if (!row.documented) continue;
    for (const RouteMethod& method : row.methods) {
      if (method.verb == http::verb::head) continue;
      std::string name(http::to_string(method.verb));
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      tabled.insert(name + " " + std::string(row.pattern));
    }
  }
  EXPECT_EQ(tabled, documented);
}

TEST(RouteTable, EachPatternMatchesItsOwnRowAndEveryMethodHasAHandler) {
  std::set<std::string_view> patterns;
  for (const RouteRow& row : route_table()) {
    SCOPED_TRACE(std::string(row.pattern));
    EXPECT_TRUE(patterns.insert(row.pattern).second) << "a pattern appears twice";
    const Match match = match_path(concrete_path(row.pattern), true);
    EXPECT_EQ(match.row, &row);
    ASSERT_FALSE(row.methods.empty());
    for (const RouteMethod& method : row.methods) EXPECT_NE(method.handler, nullptr);
  }
}

TEST(RouteTable, AStarTakesTheRestOfThePathButNotItsAbsence) {
  EXPECT_EQ(match_path("/static/app.js", false).row->pattern, "/static/*");
  EXPECT_EQ(match_path("/static/a/b.js", false).row->pattern, "/static/*");
  EXPECT_EQ(match_path("/static/", false).row->pattern, "/static/*");
  EXPECT_EQ(match_path("/static", false).row, nullptr);
}

TEST(RouteTable, TheLtiRowsExistOnlyWithLti) {
  EXPECT_NE(match_path("/lti/launch", true).row, nullptr);
  EXPECT_EQ(match_path("/lti/launch", false).row, nullptr);
  EXPECT_NE(route_list(true).find("POST /lti/launch"), std::string::npos);
  EXPECT_EQ(route_list(false).find("/lti/"), std::string::npos);
}

TEST(RouteTable, The404ListsEveryRouteOnceStaffRoutesAfterTheOthers) {
  const testing::Part1Router part1(testing::bundled_problems());
  Request request{http::verb::get, "/v2/problems", 11};
  const Routed routed = part1.router().route(request);
  ASSERT_EQ(routed.response.result(), http::status::not_found);
  const std::string message = Json::parse(routed.response.body())["error"]["message"];
  EXPECT_EQ(message,
            "there is no such path; the service answers GET /healthz, GET /readyz, "
            "GET /v1/openapi.json, "
            "GET /, GET /staff, GET /static/*, GET /v1/problems, GET /v1/problems/{id}, "
            "POST /v1/problems/{id}/grade, POST /v1/problems/{id}/check-steps; and, with a "
            "staff key, GET /metrics, GET /v1/problems/status, POST /v1/problems/validate, POST "
            "/v1/problems/solve, PUT and DELETE "
            "/v1/problems/{id}, GET /v1/problems/{id}/stats, POST /v1/problems/{id}/regrade, "
            "GET /v1/problems/{id}/integrity, "
            "GET /v1/passback, POST /v1/passback/{id}/retry, GET /v1/submissions, "
            "GET /v1/submissions.csv, GET /v1/submissions/{sid}, GET /v1/students.csv, "
            "DELETE /v1/students/{student}, GET /v1/audit");
}

}  // namespace
}  // namespace headgrader::server

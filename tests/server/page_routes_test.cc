// The student page's routes through the pure Router (API.md §10): the page and its files with
// their types and caching headers, 404 and 405 as for every route, and check-steps.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "headgrader/report.h"
#include "part1_router.h"
#include "router.h"
#include "static_files.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

Routed route(http::verb method, const std::string& target, const std::string& body = "",
             const std::string& content_type = "application/json") {
  static const testing::Part1Router part1(testing::bundled_problems());
  const Router& router = part1.router();
  Request request{method, target, 11};
  if (!content_type.empty()) request.set(http::field::content_type, content_type);
  request.body() = body;
  request.prepare_payload();
  return router.route(request);
}

std::string header(const Routed& routed, http::field field) {
  return std::string(routed.response[field]);
}
std::string header(const Routed& routed, const char* name) {
  return std::string(routed.response[name]);
}

TEST(PageRoutes, TheRootIsTheStudentPageAsHtmlWithItsPolicy) {
  const Routed routed = route(http::verb::get, "/");
  EXPECT_EQ(routed.response.result(), http::status::ok);
  EXPECT_EQ(header(routed, http::field::content_type), "text/html; charset=utf-8");
  EXPECT_EQ(header(routed, http::field::cache_control), "no-cache");
  EXPECT_NE(header(routed, "Content-Security-Policy").find("default-src 'self'"),
            std::string::npos);
  EXPECT_NE(routed.response.body().find("<script type=\"module\" src=\"/static/app.js\">"),
            std::string::npos);
}

// API.md §16: the staff's page needs no key to load (each of its calls needs one), and no other
// site may frame it (a framed page could trick an instructor's clicks); the student page may
// still be framed, by an LMS.
TEST(PageRoutes, TheStaffPageIsHtmlThatNoOtherSiteMayFrame) {
  const Routed routed = route(http::verb::get, "/staff");
  EXPECT_EQ(routed.response.result(), http::status::ok);
  EXPECT_EQ(header(routed, http::field::content_type), "text/html; charset=utf-8");
  const std::string policy = header(routed, "Content-Security-Policy");
  EXPECT_NE(policy.find("default-src 'self'"), std::string::npos);
  EXPECT_NE(policy.find("frame-ancestors 'none'"), std::string::npos);
  EXPECT_EQ(header(routed, "X-Frame-Options"), "DENY");
  EXPECT_EQ(header(routed, "Referrer-Policy"), "no-referrer");
  EXPECT_NE(routed.response.body().find("<script type=\"module\" src=\"/static/staff.js\">"),
            std::string::npos);
  EXPECT_EQ(header(route(http::verb::get, "/"), "Content-Security-Policy").find("frame-ancestors"),
            std::string::npos);
  // The page is at /staff only; its file is not also a file of the student page.
  EXPECT_EQ(route(http::verb::get, "/static/staff.html").response.result(),
            http::status::not_found);
  EXPECT_EQ(route(http::verb::get, "/staff/").response.result(), http::status::not_found);
  EXPECT_EQ(route(http::verb::post, "/staff").response.result(), http::status::method_not_allowed);
}

TEST(PageRoutes, EachFileHasTheTypeOfItsKind) {
  EXPECT_EQ(header(route(http::verb::get, "/static/app.js"), http::field::content_type),
            "text/javascript; charset=utf-8");
  EXPECT_EQ(header(route(http::verb::get, "/static/style.css?v=1"), http::field::content_type),
            "text/css; charset=utf-8");
  // The build script is in web/ but is not part of the page.
  EXPECT_EQ(route(http::verb::get, "/static/embed.cmake").response.result(),
            http::status::not_found);
}

TEST(PageRoutes, AnUnchangedFileIsNotSentAgain) {
  const WebAsset* asset = find_web_asset("/static/app.js");
  ASSERT_NE(asset, nullptr);
  Request request{http::verb::get, "/static/app.js", 11};
  request.set(http::field::if_none_match, asset->etag);
  const Response response = web_asset_response(*asset, request);
  EXPECT_EQ(response.result(), http::status::not_modified);
  EXPECT_TRUE(response.body().empty());
}

TEST(PageRoutes, AnUnknownFileIsA404InJson) {
  const Routed routed = route(http::verb::get, "/static/nothing.js");
  EXPECT_EQ(routed.response.result(), http::status::not_found);
  EXPECT_EQ(Json::parse(routed.response.body())["error"]["code"], "not_found");
  EXPECT_EQ(route(http::verb::get, "/index.html").response.result(), http::status::not_found);
}

TEST(PageRoutes, AWrongMethodIsA405WithAllow) {
  const Routed page = route(http::verb::post, "/");
  EXPECT_EQ(page.response.result(), http::status::method_not_allowed);
  EXPECT_EQ(header(page, http::field::allow), "GET, HEAD");
  const Routed steps = route(http::verb::get, "/v1/problems/consonant-anywhere/check-steps");
  EXPECT_EQ(steps.response.result(), http::status::method_not_allowed);
  EXPECT_EQ(header(steps, http::field::allow), "POST");
}

TEST(PageRoutes, CheckStepsAnswersJsonAndItsErrorsAsTheContractSays) {
  const std::string body = R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]],
    "input": "ab", "steps": {"K": [[0], [5]]}})";
  const Routed ok = route(http::verb::post, "/v1/problems/consonant-anywhere/check-steps", body);
  EXPECT_EQ(ok.response.result(), http::status::ok);
  EXPECT_EQ(
      ok.response.body(),
      R"({"input":"ab","first_wrong":null,"steps":{"K":{"correct":true,"wrong_entries":[]}}})");
  const Routed bad = route(http::verb::post, "/v1/problems/consonant-anywhere/check-steps",
                           R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})");
  EXPECT_EQ(bad.response.result(), http::status::bad_request);
  EXPECT_EQ(Json::parse(bad.response.body())["error"]["field"], "input");
  EXPECT_EQ(route(http::verb::post, "/v1/problems/consonant-anywhere/check-steps", body, "")
                .response.result(),
            http::status::unsupported_media_type);
  EXPECT_EQ(route(http::verb::post, "/v1/problems/nope/check-steps", body).response.result(),
            http::status::not_found);
}

}  // namespace
}  // namespace headgrader::server

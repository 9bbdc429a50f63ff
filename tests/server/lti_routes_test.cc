// The LTI routes through the pure Router (no sockets): the login's redirect and its cookie for
// an https tool, the methods each route takes, refusals before any network call, and the
// student token's 401 on a grading.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "common/url_encoding.h"
#include "lti_service.h"
#include "problem_catalog.h"
#include "router.h"
#include "rsa_key.h"
#include "service.h"

namespace headgrader::server {
namespace {

ProblemCatalog& problems() {
  static ProblemCatalog* catalog = [] {
    auto loaded = ProblemSet::load(HEADGRADER_SOURCE_DIR "/problems");
    return new ProblemCatalog(std::get<ProblemSet>(std::move(loaded)));
  }();
  return *catalog;
}

class LtiRoutes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                     ("hg_lti_routes_" + std::to_string(::getpid())));
    std::filesystem::create_directories(*dir_);
    std::filesystem::remove(*dir_ / "tool.pem");
    ASSERT_TRUE(lti::generate_private_key(*dir_ / "tool.pem").ok());
    std::ofstream(*dir_ / "lti.json") << R"({"base_url": "https://grader.example.edu",
      "private_key": "tool.pem", "kid": "tool-1",
      "platforms": [{"issuer": "https://lms.example.edu", "client_id": "c-1",
        "deployment_ids": ["d-1"], "auth_login_url": "https://lms.example.edu/auth?x=1",
        "auth_token_url": "https://lms.example.edu/token",
        "keyset_url": "https://lms.example.edu/jwks"}]})";
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }

  LtiRoutes() {
    auto opened = LtiService::open({*dir_ / "lti.json"}, problems(), /*store=*/nullptr,
                                   [this](const std::string& line) { log_.push_back(line); });
    EXPECT_TRUE(opened.ok()) << opened.error().message;
    service_ = std::move(opened).value();
    service_parts_.problems = &problems();
    service_parts_.lti = service_.get();
    service_parts_.student_tokens = service_->student_tokens();
    router_ = std::make_unique<Router>(service_parts_);
  }

  Response get(const std::string& target, http::verb verb = http::verb::get) {
    Request request{verb, target, 11};
    return router_->route(request).response;
  }

  static std::filesystem::path* dir_;
  std::vector<std::string> log_;
  std::unique_ptr<LtiService> service_;
  Service service_parts_;
  std::unique_ptr<Router> router_;
};
std::filesystem::path* LtiRoutes::dir_ = nullptr;

TEST_F(LtiRoutes, LoginRedirectsWithExactlyTheOidcParametersAndASecureCookie) {
  const Response response =
      get("/lti/login?iss=https%3A%2F%2Flms.example.edu&login_hint=u1&lti_message_hint=m1"
          "&target_link_uri=https%3A%2F%2Fgrader.example.edu%2Flti%2Flaunch&client_id=c-1");
  ASSERT_EQ(response.result(), http::status::found) << response.body();
  const std::string location(response[http::field::location]);
  ASSERT_TRUE(location.starts_with("https://lms.example.edu/auth?x=1&")) << location;
  const auto query = parse_form(location.substr(location.find('&') + 1));
  ASSERT_TRUE(query.has_value());
  std::set<std::string> names;
  for (const auto& [name, value] : *query) names.insert(name);
  EXPECT_EQ(names, (std::set<std::string>{"client_id", "login_hint", "lti_message_hint", "nonce",
                                          "prompt", "redirect_uri", "response_mode",
                                          "response_type", "scope", "state"}));
  EXPECT_EQ(query->at("scope"), "openid");
  EXPECT_EQ(query->at("response_type"), "id_token");
  EXPECT_EQ(query->at("response_mode"), "form_post");
  EXPECT_EQ(query->at("prompt"), "none");
  EXPECT_EQ(query->at("client_id"), "c-1");
  EXPECT_EQ(query->at("redirect_uri"), "https://grader.example.edu/lti/launch");
  EXPECT_EQ(query->at("login_hint"), "u1");
  EXPECT_EQ(query->at("lti_message_hint"), "m1");
  const std::string cookie(response[http::field::set_cookie]);
  EXPECT_EQ(cookie.find("=" + query->at("state") + ";") != std::string::npos, true) << cookie;
  EXPECT_NE(cookie.find("; HttpOnly; SameSite=None; Secure"), std::string::npos) << cookie;
}

TEST_F(LtiRoutes, LoginFromAnUnknownPlatformIsRefusedWithAPage) {
  const Response response = get("/lti/login?iss=https%3A%2F%2Fevil&login_hint=u1");
  EXPECT_EQ(response.result(), http::status::bad_request);
  EXPECT_NE(response.body().find("<code id=\"lti-check\">login</code>"), std::string::npos);
  EXPECT_EQ(response[http::field::content_type], "text/html; charset=utf-8");
  ASSERT_EQ(log_.size(), 1u);
  EXPECT_NE(log_[0].find(R"("refused":"login")"), std::string::npos) << log_[0];
}

TEST_F(LtiRoutes, EachRouteAnswersItsMethodsOnly) {
  const Response launch = get("/lti/launch");
  EXPECT_EQ(launch.result(), http::status::method_not_allowed);
  EXPECT_EQ(launch[http::field::allow], "POST");
  EXPECT_EQ(get("/.well-known/jwks.json", http::verb::post).result(),
            http::status::method_not_allowed);
  EXPECT_EQ(get("/.well-known/jwks.json").result(), http::status::ok);
}

TEST_F(LtiRoutes, A405NamesTheMethodsAsEveryOtherRouteDoes) {
  // Seen failing before: the LTI routes kept their own table, with "use GET, HEAD" and an
  // Allow without the HEAD the login answers.
  const Response jwks = get("/.well-known/jwks.json", http::verb::post);
  EXPECT_EQ(jwks[http::field::allow], "GET, HEAD");
  EXPECT_EQ(Json::parse(jwks.body())["error"]["message"], "POST is not allowed here; use GET");
  const Response login = get("/lti/login", http::verb::put);
  EXPECT_EQ(login.result(), http::status::method_not_allowed);
  EXPECT_EQ(login[http::field::allow], "GET, HEAD, POST");
  EXPECT_EQ(Json::parse(login.body())["error"]["message"],
            "PUT is not allowed here; use GET or POST");
}

TEST_F(LtiRoutes, AnAbsoluteFormTargetIsAnsweredAsItsPathIs) {
  // RFC 9112 §3.2.2. Seen failing before: 404, the LTI routes compared the target itself.
  for (const char* target : {"/lti/launch", "http://grader.example.edu/lti/launch",
                             "HTTPS://grader.example.edu/lti/launch"}) {
    SCOPED_TRACE(target);
    Request request{http::verb::post, target, 11};
    request.set(http::field::content_type, "application/x-www-form-urlencoded");
    request.body() = "id_token=x.y.z";
    request.prepare_payload();
    const Response response = router_->route(request).response;
    EXPECT_EQ(response.result(), http::status::unauthorized);
    EXPECT_NE(response.body().find("<code id=\"lti-check\">state</code>"), std::string::npos);
  }
  EXPECT_EQ(get("http://grader.example.edu/.well-known/jwks.json").result(), http::status::ok);
}

TEST_F(LtiRoutes, ALaunchWithoutAStateIsRefusedBeforeItsTokenIsRead) {
  Request request{http::verb::post, "/lti/launch", 11};
  request.set(http::field::content_type, "application/x-www-form-urlencoded");
  request.body() = "id_token=x.y.z";
  request.prepare_payload();
  const Response response = router_->route(request).response;
  EXPECT_EQ(response.result(), http::status::unauthorized);
  EXPECT_NE(response.body().find("<code id=\"lti-check\">state</code>"), std::string::npos);
  EXPECT_EQ(response[http::field::cache_control], "no-store");
}

TEST_F(LtiRoutes, AGradingWithAnUnknownBearerTokenIs401) {
  Request request{http::verb::post, "/v1/problems/consonant-anywhere/grade", 11};
  request.set(http::field::content_type, "application/json");
  request.set(http::field::authorization, "Bearer nope");
  request.body() = R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})";
  request.prepare_payload();
  const Response response = router_->route(request).response;
  EXPECT_EQ(response.result(), http::status::unauthorized);
  EXPECT_EQ(response[http::field::www_authenticate], "Bearer");
  // Without a bearer token grading stays open, as in Part 1.
  request.erase(http::field::authorization);
  EXPECT_EQ(router_->route(request).response.result(), http::status::ok);
}

}  // namespace
}  // namespace headgrader::server

// Shared by the tests of the id_token verifier and the platform's keyset (tests/lti/
// lti_verifier_test.cc, lti_keyset_test.cc; API.md §11): the platform's keys, made here with
// OpenSSL once per process, a keyset server behind the real KeysetCache's HttpClient seam,
// a genuine launch's claims, and the Verifier fixture that checks a token as a launch does.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>

#include "jws.h"
#include "keyset_cache.h"
#include "launch_verifier.h"
#include "lti_config.h"
#include "lti_test_clock.h"
#include "once_set.h"
#include "rsa_key.h"

namespace headgrader::lti {

inline constexpr const char* kIssuer = "https://lms.example.edu";
inline constexpr const char* kClientId = "client-1";
inline constexpr const char* kKeysetUrl = "https://lms.example.edu/jwks";

inline RsaKey make_key(const char* name) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("hg_lti_test_" + std::to_string(::getpid()) + name + ".pem");
  std::filesystem::remove(path);
  Result<RsaKey> key = generate_private_key(path);
  std::filesystem::remove(path);
  if (!key) ADD_FAILURE() << key.error().message;
  return *key;
}

inline const RsaKey& platform_key() {
  static const RsaKey key = make_key("platform");
  return key;
}
inline const RsaKey& other_key() {
  static const RsaKey key = make_key("other");
  return key;
}

// Serves the keyset it holds for kKeysetUrl and counts requests.
class KeysetServer final : public HttpClient {
 public:
  Result<HttpAnswer> send(const HttpRequest& request) override {
    ++requests;
    if (request.url != kKeysetUrl) return HttpAnswer{404, "", "", ""};
    return HttpAnswer{200, jwks.dump(), "application/json", ""};
  }
  Json jwks = Json{{"keys", Json::array({public_jwk(platform_key(), "k1")})}};
  int requests = 0;
};

inline Json genuine_claims() {
  return Json{
      {"iss", kIssuer},
      {"aud", kClientId},
      {"sub", "student-7"},
      {"name", "Ada Lovelace"},
      {"iat", kNow - 5},
      {"exp", kNow + 300},
      {"nonce", "N1"},
      {"https://purl.imsglobal.org/spec/lti/claim/deployment_id", "dep-1"},
      {"https://purl.imsglobal.org/spec/lti/claim/version", "1.3.0"},
      {"https://purl.imsglobal.org/spec/lti/claim/message_type", "LtiResourceLinkRequest"},
      {"https://purl.imsglobal.org/spec/lti/claim/resource_link", {{"id", "rl-1"}}},
      {"https://purl.imsglobal.org/spec/lti/claim/context", {{"id", "c-1"}, {"title", "ML"}}},
      {"https://purl.imsglobal.org/spec/lti/claim/custom", {{"problem", "handout"}}},
      {"https://purl.imsglobal.org/spec/lti-ags/claim/endpoint",
       {{"scope", Json::array({std::string(kScoreScope)})},
        {"lineitem", "https://lms.example.edu/lineitems/9?type=x"}}}};
}

inline std::string sign(const Json& claims, const RsaKey& key = platform_key(),
                        const char* kid = "k1") {
  Result<std::string> token = sign_rs256(key, kid, claims);
  EXPECT_TRUE(token.ok());
  return *token;
}

class Verifier : public ::testing::Test {
 protected:
  Verifier() : cache_(server_, std::chrono::milliseconds(10'000)) {
    config_.base_url = "https://grader.example.edu";
    config_.kid = "tool-1";
    config_.platforms.push_back({kIssuer,
                                 kClientId,
                                 {"dep-1"},
                                 "https://lms.example.edu/auth",
                                 "https://lms.example.edu/token",
                                 "",
                                 kKeysetUrl});
  }

  Result<VerifiedLaunch> verify(const std::string& token, std::string_view nonce = "",
                                long long now = kNow) {
    const LaunchContext context{config_, cache_, once_,
                                [](std::string_view id) { return id == "handout"; }};
    return verify_launch(context, token, nonce.empty() ? nonce_ : nonce, at(now));
  }

  // The check that failed, or "" when the token passed.
  std::string failed_check(const std::string& token, std::string_view nonce = "",
                           long long now = kNow) {
    Result<VerifiedLaunch> result = verify(token, nonce, now);
    return result ? "" : result.error().field;
  }

  // The genuine claims with one changed (or removed), under a nonce of their own (a failure
  // after the nonce check uses the nonce up); failed_check() then expects that nonce.
  std::string with(const char* key, const Json& value) {
    Json claims = genuine_claims();
    claims["nonce"] = next_nonce();
    claims[key] = value;
    return sign(claims);
  }
  std::string without(const char* key) {
    Json claims = genuine_claims();
    claims["nonce"] = next_nonce();
    claims.erase(key);
    return sign(claims);
  }
  std::string next_nonce() {
    nonce_ = "N-" + std::to_string(++nonces_);
    return nonce_;
  }

  std::string nonce_ = "N1";
  int nonces_ = 0;

  KeysetServer server_;
  KeysetCache cache_;
  MemoryOnceSet once_;
  LtiConfig config_;
};

}  // namespace headgrader::lti

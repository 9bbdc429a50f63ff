// The id_token verifier of API.md §11, check by check: a genuine launch passes, and for each
// check a token that breaks only it fails with that check named (and 401, or 403 for the
// deployment and the problem). Keys are made here with OpenSSL; the platform's keyset is served
// to the real KeysetCache through its HttpClient seam.
#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <string>

#include "common/base64url.h"
#include "common/secrets.h"
#include "headgrader/limits.h"
#include "jws.h"
#include "keyset_cache.h"
#include "launch_verifier.h"
#include "lti_check.h"
#include "lti_test_clock.h"
#include "rsa_key.h"

namespace headgrader::lti {
namespace {

constexpr const char* kIssuer = "https://lms.example.edu";
constexpr const char* kClientId = "client-1";
constexpr const char* kKeysetUrl = "https://lms.example.edu/jwks";

RsaKey make_key(const char* name) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("hg_lti_test_" + std::to_string(::getpid()) + name + ".pem");
  std::filesystem::remove(path);
  Result<RsaKey> key = generate_private_key(path);
  std::filesystem::remove(path);
  if (!key) ADD_FAILURE() << key.error().message;
  return *key;
}

const RsaKey& platform_key() {
  static const RsaKey key = make_key("platform");
  return key;
}
const RsaKey& other_key() {
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

Json genuine_claims() {
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

std::string sign(const Json& claims, const RsaKey& key = platform_key(), const char* kid = "k1") {
  Result<std::string> token = sign_rs256(key, kid, claims);
  EXPECT_TRUE(token.ok());
  return *token;
}

// A token with any header, signed (or not) as the caller says.
std::string raw_token(const Json& header, const Json& claims, std::string_view signature) {
  return base64url_encode(header.dump()) + "." + base64url_encode(claims.dump()) + "." +
         base64url_encode(signature);
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

TEST_F(Verifier, AcceptsAGenuineLaunchAndReadsItsClaims) {
  Result<VerifiedLaunch> launch = verify(sign(genuine_claims()));
  ASSERT_TRUE(launch.ok()) << launch.error().message;
  EXPECT_EQ(launch->binding.student, "https://lms.example.edu#student-7");
  EXPECT_EQ(launch->binding.name, "Ada Lovelace");
  EXPECT_EQ(launch->binding.problem, "handout");
  EXPECT_EQ(launch->binding.context_id, "c-1");
  EXPECT_EQ(launch->binding.resource_link_id, "rl-1");
  EXPECT_EQ(launch->binding.lineitem, "https://lms.example.edu/lineitems/9?type=x");
  EXPECT_EQ(launch->message_type, "LtiResourceLinkRequest");
}

TEST_F(Verifier, AlgNoneIsRefusedBeforeAnyKeyIsFetched) {
  const std::string token = raw_token({{"alg", "none"}, {"kid", "k1"}}, genuine_claims(), "");
  EXPECT_EQ(failed_check(token), check::kAlgorithm);
  EXPECT_EQ(server_.requests, 0);
}

TEST_F(Verifier, Hs256KeyedWithThePlatformsPublicKeyIsRefused) {
  // The classic confusion attack: HMAC keyed with the public key's bytes, which a verifier
  // that lets the header choose the algorithm would accept.
  const Json header{{"alg", "HS256"}, {"kid", "k1"}, {"typ", "JWT"}};
  const std::string input =
      base64url_encode(header.dump()) + "." + base64url_encode(genuine_claims().dump());
  const std::string jwk = public_jwk(platform_key(), "k1").dump();
  const std::string token = input + "." + base64url_encode(hmac_sha256(jwk, input));
  EXPECT_EQ(failed_check(token), check::kAlgorithm);
  EXPECT_EQ(server_.requests, 0);
}

TEST_F(Verifier, EveryOtherAlgorithmIsRefused) {
  for (const Json& alg :
       {Json("RS512"), Json("PS256"), Json("ES256"), Json("rs256"), Json(256), Json(nullptr)}) {
    EXPECT_EQ(failed_check(raw_token({{"alg", alg}, {"kid", "k1"}}, genuine_claims(), "x")),
              check::kAlgorithm)
        << alg.dump();
  }
  EXPECT_EQ(failed_check(raw_token({{"kid", "k1"}}, genuine_claims(), "x")), check::kAlgorithm);
}

TEST_F(Verifier, AKeyIdIsRequired) {
  EXPECT_EQ(failed_check(raw_token({{"alg", "RS256"}}, genuine_claims(), "x")), check::kKeyId);
  EXPECT_EQ(failed_check(sign(genuine_claims(), platform_key(), "k-unknown")), check::kKeyId);
}

TEST_F(Verifier, MalformedTokensAreRefusedAsFormat) {
  const std::string good = sign(genuine_claims());
  EXPECT_EQ(failed_check("abc.def"), check::kFormat);
  EXPECT_EQ(failed_check(good + ".x"), check::kFormat);
  EXPECT_EQ(failed_check(good + "="), check::kFormat);            // padding
  EXPECT_EQ(failed_check("!" + good.substr(1)), check::kFormat);  // not base64url
  EXPECT_EQ(failed_check(base64url_encode("[1]") + ".e30.x"), check::kFormat);
  // A header naming alg twice is ambiguous: refused, whichever one a parser would take.
  EXPECT_EQ(failed_check(base64url_encode(R"({"alg":"none","alg":"RS256","kid":"k1"})") + "." +
                         base64url_encode(genuine_claims().dump()) + ".x"),
            check::kFormat);
  EXPECT_EQ(failed_check(std::string(limits::kLtiMaxTokenBytes + 1, 'a')), check::kFormat);
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  EXPECT_EQ(
      failed_check(base64url_encode(R"({"alg":"RS256","kid":"k1","x":)" + deep + "}") + ".e30.x"),
      check::kFormat);
}

TEST_F(Verifier, AForgedSignatureIsRefused) {
  const std::string genuine = sign(genuine_claims());
  Json changed = genuine_claims();
  changed["sub"] = "someone-else";
  const std::string forged = genuine.substr(0, genuine.find('.') + 1) +
                             base64url_encode(changed.dump()) + genuine.substr(genuine.rfind('.'));
  EXPECT_EQ(failed_check(forged), check::kSignature);
  EXPECT_EQ(failed_check(sign(genuine_claims(), other_key(), "k1")), check::kSignature);
  // A signature one byte short or long never reaches OpenSSL as valid.
  std::string short_signature = *base64url_decode(genuine.substr(genuine.rfind('.') + 1));
  short_signature.pop_back();
  EXPECT_EQ(
      failed_check(genuine.substr(0, genuine.rfind('.') + 1) + base64url_encode(short_signature)),
      check::kSignature);
}

TEST_F(Verifier, TheIssuerMustBeAKnownPlatform) {
  EXPECT_EQ(failed_check(with("iss", "https://evil.example")), check::kIssuer);
  EXPECT_EQ(failed_check(without("iss")), check::kIssuer);
}

TEST_F(Verifier, TheAudienceMustHoldTheClientId) {
  EXPECT_EQ(failed_check(with("aud", "client-2")), check::kAudience);
  EXPECT_EQ(failed_check(with("aud", Json::array({"client-2"}))), check::kAudience);
  EXPECT_EQ(failed_check(without("aud")), check::kAudience);
  EXPECT_EQ(failed_check(with("aud", Json::array({kClientId}))), "");
}

TEST_F(Verifier, SeveralAudiencesNeedAnAzpEqualToTheClientId) {
  Json claims = genuine_claims();
  claims["aud"] = Json::array({"other", kClientId});
  EXPECT_EQ(failed_check(sign(claims)), check::kAuthorizedParty);
  claims["azp"] = "other";
  EXPECT_EQ(failed_check(sign(claims)), check::kAuthorizedParty);
  claims["azp"] = kClientId;
  EXPECT_EQ(failed_check(sign(claims)), "");
}

TEST_F(Verifier, ExpiryHasSixtySecondsOfSkewAndNoMore) {
  EXPECT_EQ(failed_check(with("exp", kNow - 61)), check::kExpiry);
  EXPECT_EQ(failed_check(with("exp", kNow - 59)), "");
  EXPECT_EQ(failed_check(without("exp")), check::kExpiry);
  EXPECT_EQ(failed_check(with("exp", "soon")), check::kExpiry);
}

TEST_F(Verifier, IssuedAtInTheFutureBeyondTheSkewIsRefused) {
  EXPECT_EQ(failed_check(with("iat", kNow + 61)), check::kIssuedAt);
  EXPECT_EQ(failed_check(with("iat", kNow + 59)), "");
  EXPECT_EQ(failed_check(without("iat")), check::kIssuedAt);
}

TEST_F(Verifier, TheNonceMustBeTheLoginsAndIsUsedOnce) {
  EXPECT_EQ(failed_check(sign(genuine_claims()), "N2"), check::kNonce);
  EXPECT_EQ(failed_check(without("nonce")), check::kNonce);
  const std::string token = sign(genuine_claims());
  EXPECT_EQ(failed_check(token, "N1"), "");
  EXPECT_EQ(failed_check(token, "N1"), check::kNonce);  // the same id_token again: a replay
  // Still refused after an hour (the nonce is kept longer than the token could live).
  EXPECT_EQ(failed_check(token, "N1", kNow + 250), check::kNonce);
}

TEST_F(Verifier, AnUnknownDeploymentIsForbidden) {
  Result<VerifiedLaunch> result =
      verify(with("https://purl.imsglobal.org/spec/lti/claim/deployment_id", "dep-9"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().field, check::kDeployment);
  EXPECT_EQ(result.error().code, ErrorCode::kForbidden);
}

TEST_F(Verifier, SignatureFailuresAreUnauthorized) {
  Result<VerifiedLaunch> result = verify(sign(genuine_claims(), other_key(), "k1"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kUnauthorized);
}

TEST_F(Verifier, VersionMessageTypeAndSubjectAreChecked) {
  EXPECT_EQ(failed_check(with("https://purl.imsglobal.org/spec/lti/claim/version", "1.1")),
            check::kVersion);
  EXPECT_EQ(failed_check(with("https://purl.imsglobal.org/spec/lti/claim/message_type",
                              "LtiSubmissionReviewRequest")),
            check::kMessageType);
  EXPECT_EQ(failed_check(without("sub")), check::kSubject);
  EXPECT_EQ(failed_check(with("sub", "")), check::kSubject);
}

TEST_F(Verifier, TheCustomProblemMustBeServed) {
  EXPECT_EQ(failed_check(with("https://purl.imsglobal.org/spec/lti/claim/custom", Json::object())),
            check::kProblem);
  EXPECT_EQ(
      failed_check(with("https://purl.imsglobal.org/spec/lti/claim/custom", {{"problem", "nope"}})),
      check::kProblem);
}

TEST_F(Verifier, NoLineItemWithoutTheScoreScope) {
  Result<VerifiedLaunch> launch = verify(
      with("https://purl.imsglobal.org/spec/lti-ags/claim/endpoint",
           {{"scope", Json::array({"https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"})},
            {"lineitem", "https://lms.example.edu/lineitems/9"}}));
  ASSERT_TRUE(launch.ok());
  EXPECT_EQ(launch->binding.lineitem, "");
}

TEST_F(Verifier, DeepLinkingNeedsAReturnUrl) {
  Json claims = genuine_claims();
  claims["https://purl.imsglobal.org/spec/lti/claim/message_type"] = "LtiDeepLinkingRequest";
  claims.erase("https://purl.imsglobal.org/spec/lti/claim/custom");
  EXPECT_EQ(failed_check(sign(claims)), check::kMessageType);
  claims["nonce"] = "N3";
  claims["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"] = {
      {"deep_link_return_url", "https://lms.example.edu/dl"}, {"data", "opaque"}};
  Result<VerifiedLaunch> launch = verify(sign(claims), "N3");
  ASSERT_TRUE(launch.ok()) << launch.error().message;
  EXPECT_EQ(launch->binding.deep_link_return_url, "https://lms.example.edu/dl");
  EXPECT_EQ(launch->binding.deep_link_data, "opaque");
  EXPECT_EQ(launch->binding.problem, "");
}

// --- The keyset cache -------------------------------------------------------------------------

TEST_F(Verifier, ARotatedKeyIsFetchedOnceAndForgedKidsDoNotRefetchEachTime) {
  EXPECT_EQ(failed_check(sign(genuine_claims())), "");
  EXPECT_EQ(server_.requests, 1);
  // The platform rotates to k2; the first token with k2 fetches the keyset again.
  server_.jwks = Json{{"keys", Json::array({public_jwk(other_key(), "k2")})}};
  Json claims = genuine_claims();
  claims["nonce"] = "N2";
  EXPECT_EQ(failed_check(sign(claims, other_key(), "k2"), "N2", kNow + 11), "");
  EXPECT_EQ(server_.requests, 2);
  // Made-up kids right after: refused without a fetch each (once per interval at most).
  EXPECT_EQ(failed_check(sign(genuine_claims(), other_key(), "made-up-1"), "N1", kNow + 12),
            check::kKeyId);
  EXPECT_EQ(failed_check(sign(genuine_claims(), other_key(), "made-up-2"), "N1", kNow + 13),
            check::kKeyId);
  EXPECT_EQ(server_.requests, 2);
}

TEST_F(Verifier, AnUnreachableKeysetIsReportedAsSuch) {
  config_.platforms[0].keyset_url = "https://lms.example.edu/missing";
  EXPECT_EQ(failed_check(sign(genuine_claims())), check::kKeyset);
}

// A keyset server that answers only once opened: a platform whose keyset is slow.
class GatedKeysetServer final : public HttpClient {
 public:
  Result<HttpAnswer> send(const HttpRequest&) override {
    std::unique_lock lock(mutex);
    ++requests;
    changed.notify_all();
    changed.wait(lock, [this] { return open; });
    return HttpAnswer{200, jwks.dump(), "application/json", ""};
  }
  void set_open(bool value) {
    const std::lock_guard lock(mutex);
    open = value;
    changed.notify_all();
  }
  void wait_for_requests(int count) {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return requests >= count; });
  }
  std::mutex mutex;
  std::condition_variable changed;
  bool open = true;
  int requests = 0;
  Json jwks = Json{{"keys", Json::array({public_jwk(platform_key(), "k1")})}};
};

TEST(KeysetCache, AKnownKeyAnswersWhileAFetchIsUnderWayAndLookupsShareThatFetch) {
  GatedKeysetServer server;
  KeysetCache cache(server, std::chrono::milliseconds(10'000));
  const Platform platform{kIssuer,
                          kClientId,
                          {"dep-1"},
                          "https://lms.example.edu/auth",
                          "https://lms.example.edu/token",
                          "",
                          kKeysetUrl};
  ASSERT_TRUE(cache.key(platform, "k1", at(kNow)).ok());
  // The platform rotates to k2 and becomes slow: a token with k2 starts a fetch that waits.
  server.set_open(false);
  {
    const std::lock_guard lock(server.mutex);
    server.jwks["keys"].push_back(public_jwk(other_key(), "k2"));
  }
  auto first =
      std::async(std::launch::async, [&] { return cache.key(platform, "k2", at(kNow + 11)); });
  server.wait_for_requests(2);
  // A second lookup of k2 meanwhile waits for the same fetch rather than being refused or
  // asking again; a lookup of the known k1 answers without waiting for it at all.
  auto second =
      std::async(std::launch::async, [&] { return cache.key(platform, "k2", at(kNow + 11)); });
  auto known =
      std::async(std::launch::async, [&] { return cache.key(platform, "k1", at(kNow + 11)); });
  const bool answered = known.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  server.set_open(true);  // in every case, so that no thread is left waiting
  EXPECT_TRUE(answered) << "a lookup of a known key waited for another lookup's fetch";
  EXPECT_TRUE(known.get().ok());
  EXPECT_TRUE(first.get().ok());
  EXPECT_TRUE(second.get().ok());
  EXPECT_EQ(server.requests, 2);
  EXPECT_EQ(cache.fetches(), 2u);
}

// --- Keys and base64url -----------------------------------------------------------------------

TEST(Jwk, WeakAndMalformedKeysAreRefused) {
  Json jwk = public_jwk(platform_key(), "k1");
  EXPECT_TRUE(rsa_public_key_from_jwk(jwk).ok());
  Json weak = jwk;
  weak["n"] = jwk["n"].get<std::string>().substr(0, 171);  // 1024 bits
  EXPECT_EQ(rsa_public_key_from_jwk(weak).error().field, "n");
  Json ec = jwk;
  ec["kty"] = "EC";
  EXPECT_EQ(rsa_public_key_from_jwk(ec).error().field, "kty");
  Json even = jwk;
  even["e"] = base64url_encode(std::string("\x01\x00\x00", 3));
  EXPECT_EQ(rsa_public_key_from_jwk(even).error().field, "e");
  Json hs = jwk;
  hs["alg"] = "HS256";
  EXPECT_EQ(rsa_public_key_from_jwk(hs).error().field, "alg");
}

TEST(Jwk, ThePublicJwkHasTheContractsMembersInOrder) {
  const Json jwk = public_jwk(platform_key(), "tool-1");
  std::vector<std::string> keys;
  for (const auto& [key, value] : jwk.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"kty", "alg", "use", "kid", "n", "e"}));
  EXPECT_EQ(jwk["e"], "AQAB");  // 65537
  EXPECT_EQ(platform_key().bits(), 2048);
}

TEST(Base64url, DecodingIsStrict) {
  EXPECT_EQ(base64url_decode("QQ"), std::optional<std::string>("A"));
  EXPECT_EQ(base64url_decode("QR"), std::nullopt);    // stray bits
  EXPECT_EQ(base64url_decode("QQ=="), std::nullopt);  // padding
  EXPECT_EQ(base64url_decode("Q"), std::nullopt);     // impossible length
  EXPECT_EQ(base64url_decode("a+b/"), std::nullopt);  // base64, not base64url
  EXPECT_EQ(base64url_decode("YW Jj"), std::nullopt);
  EXPECT_EQ(base64url_encode("\xfb\xff"), "-_8");
  EXPECT_EQ(base64url_decode("-_8"), std::optional<std::string>("\xfb\xff"));
}

}  // namespace
}  // namespace headgrader::lti

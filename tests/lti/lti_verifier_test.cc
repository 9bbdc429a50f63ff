// The id_token verifier of API.md §11, check by check: a genuine launch passes, and for each
// check a token that breaks only it fails with that check named (and 401, or 403 for the
// deployment and the problem). Keys are made with OpenSSL and the platform's keyset is served
// to the real KeysetCache through its HttpClient seam (lti_verifier_support.h); the cache
// itself and the keys' JWKs are in lti_keyset_test.cc.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "common/base64url.h"
#include "common/secrets.h"
#include "headgrader/limits.h"
#include "jws.h"
#include "launch_verifier.h"
#include "lti_check.h"
#include "lti_test_clock.h"
#include "lti_verifier_support.h"

namespace headgrader::lti {
namespace {

// A token with any header, signed (or not) as the caller says.
std::string raw_token(const Json& header, const Json& claims, std::string_view signature) {
  return base64url_encode(header.dump()) + "." + base64url_encode(claims.dump()) + "." +
         base64url_encode(signature);
}

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

}  // namespace
}  // namespace headgrader::lti

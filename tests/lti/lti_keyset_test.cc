// The platform's keyset (API.md §11): the real KeysetCache fetches a rotated key once, does not
// refetch for each forged kid, reports a keyset it cannot reach, and answers a known key while
// a slow fetch is under way; a JWK that is weak or malformed is refused, the tool's own JWK has
// the contract's members in order, and base64url decoding is strict.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/base64url.h"
#include "jws.h"
#include "keyset_cache.h"
#include "lti_check.h"
#include "lti_test_clock.h"
#include "lti_verifier_support.h"
#include "rsa_key.h"

namespace headgrader::lti {
namespace {

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

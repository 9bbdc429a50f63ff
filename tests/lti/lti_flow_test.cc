// The LTI pieces around the verifier: the login's state (signed, single use, bound to the
// cookie when there is one), the score URL and body of AGS, the passback back-off and outbox,
// URL splitting, and the --lti file's checks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ags_client.h"
#include "http_client.h"
#include "login_state.h"
#include "lti_check.h"
#include "lti_config.h"
#include "lti_test_clock.h"
#include "passback_worker.h"
#include "rsa_key.h"
#include "score_outbox.h"

namespace headgrader::lti {
namespace {

const std::filesystem::path& key_file() {
  static const std::filesystem::path path = [] {
    const auto file = std::filesystem::temp_directory_path() /
                      ("hg_lti_flow_" + std::to_string(::getpid()) + ".pem");
    std::filesystem::remove(file);
    Result<RsaKey> key = generate_private_key(file);
    if (!key) ADD_FAILURE() << key.error().message;
    return file;
  }();
  return path;
}

const RsaKey& tool_key() {
  static const RsaKey key = *load_private_key(key_file());
  return key;
}

std::string failed(const Result<std::string>& result) { return result ? "" : result.error().field; }

TEST(LoginState, AnIssuedStatePassesOnceAndGivesItsNonce) {
  const LoginStates states(tool_key());
  MemoryOnceSet once;
  const LoginStates::Issued issued = states.issue(at(kNow));
  Result<std::string> nonce = states.check(issued.state, issued.state, once, at(kNow + 1));
  ASSERT_TRUE(nonce.ok()) << nonce.error().message;
  EXPECT_EQ(*nonce, issued.nonce);
  EXPECT_EQ(failed(states.check(issued.state, issued.state, once, at(kNow + 2))), check::kState);
}

TEST(LoginState, WithoutTheCookieTheSignedStateStillPasses) {
  const LoginStates states(tool_key());
  MemoryOnceSet once;
  const LoginStates::Issued issued = states.issue(at(kNow));
  EXPECT_EQ(failed(states.check(issued.state, std::nullopt, once, at(kNow + 1))), "");
}

TEST(LoginState, ForgedExpiredAndMismatchedStatesFail) {
  const LoginStates states(tool_key());
  MemoryOnceSet once;
  const LoginStates::Issued issued = states.issue(at(kNow));
  std::string forged = issued.state;
  forged[0] = forged[0] == 'A' ? 'B' : 'A';
  EXPECT_EQ(failed(states.check(forged, std::nullopt, once, at(kNow))), check::kState);
  EXPECT_EQ(failed(states.check("", std::nullopt, once, at(kNow))), check::kState);
  EXPECT_EQ(failed(states.check("a.b", std::nullopt, once, at(kNow))), check::kState);
  // Another login's state in the cookie: not this browser's login.
  const LoginStates::Issued other = states.issue(at(kNow));
  EXPECT_EQ(failed(states.check(issued.state, other.state, once, at(kNow))), check::kState);
  const long long expired = kNow + limits::kLtiStateLifetime.count();
  EXPECT_EQ(failed(states.check(other.state, std::nullopt, once, at(expired))), check::kState);
  // A state signed by another tool key is not ours.
  const std::filesystem::path other_file = key_file().string() + ".other";
  std::filesystem::remove(other_file);
  const LoginStates others(*generate_private_key(other_file));
  std::filesystem::remove(other_file);
  EXPECT_EQ(failed(states.check(others.issue(at(kNow)).state, std::nullopt, once, at(kNow))),
            check::kState);
}

TEST(Ags, ScoresGoBeforeTheQueryString) {
  EXPECT_EQ(scores_url("https://lms/li/7"), "https://lms/li/7/scores");
  EXPECT_EQ(scores_url("https://lms/li/7/"), "https://lms/li/7/scores");
  EXPECT_EQ(scores_url("https://moodle/mod/lti/services.php/2/lineitems/5/lineitem?type_id=3"),
            "https://moodle/mod/lti/services.php/2/lineitems/5/lineitem/scores?type_id=3");
}

TEST(Ags, TheScoreBodyHasTheFieldsOfTheSpecification) {
  const Json body =
      Json::parse(score_body({"https://lms/li/7", "u-1", 0.75, "2026-12-01T10:00:00.000Z"}));
  EXPECT_EQ(body, Json::parse(R"({"timestamp": "2026-12-01T10:00:00.000Z", "scoreGiven": 0.75,
      "scoreMaximum": 1, "activityProgress": "Completed", "gradingProgress": "FullyGraded",
      "userId": "u-1"})"));
}

TEST(Passback, BackOffDoublesUpToItsCap) {
  const BackoffPolicy policy{std::chrono::milliseconds(1000), std::chrono::milliseconds(10'000),
                             std::chrono::milliseconds(1000)};
  EXPECT_EQ(backoff_after(1, policy).count(), 1000);
  EXPECT_EQ(backoff_after(2, policy).count(), 2000);
  EXPECT_EQ(backoff_after(4, policy).count(), 8000);
  EXPECT_EQ(backoff_after(5, policy).count(), 10'000);
  EXPECT_EQ(backoff_after(500, policy).count(), 10'000);
}

TEST(Passback, ScoresShareALaneExactlyWhenTheirLineItemsShareAHost) {
  EXPECT_EQ(passback_lane("https://lms.example.edu/lineitems/7/lineitem?type_id=3"),
            "https://lms.example.edu:443");
  EXPECT_EQ(passback_lane("https://lms.example.edu:443/other"),
            passback_lane("https://lms.example.edu/lineitems/8"));
  EXPECT_NE(passback_lane("http://lms.example.edu/x"), passback_lane("https://lms.example.edu/x"));
  EXPECT_NE(passback_lane("https://lms.example.edu:8443/x"),
            passback_lane("https://lms.example.edu/x"));
  EXPECT_NE(passback_lane("https://silent.example/x"), passback_lane("https://lms.example.edu/x"));
}

TEST(Passback, AClaimedScoreIsNotClaimedAgainUntilItsLeaseEnds) {
  MemoryScoreOutbox outbox;
  OutboxEntry entry;
  entry.submission_id = "s-1";
  const std::string id = *outbox.enqueue(entry);
  EXPECT_EQ(*outbox.enqueue(entry), id);  // one entry per record
  EXPECT_EQ(outbox.claim_due(at(kNow), at(kNow + 60), 10)->size(), 1u);
  EXPECT_EQ(outbox.claim_due(at(kNow + 1), at(kNow + 61), 10)->size(), 0u);
  ASSERT_TRUE(*outbox.mark_retry(id, at(kNow + 5), 503, "down"));
  EXPECT_EQ(outbox.claim_due(at(kNow + 4), at(kNow + 64), 10)->size(), 0u);
  EXPECT_EQ(outbox.claim_due(at(kNow + 5), at(kNow + 65), 10)->size(), 1u);
  ASSERT_TRUE(*outbox.mark_failed(id, 400, "refused"));
  EXPECT_EQ(outbox.list("failed")->at(0).attempts, 2);
  EXPECT_EQ(outbox.claim_due(at(kNow + 100), at(kNow + 160), 10)->size(), 0u);
  EXPECT_TRUE(*outbox.retry(id, at(kNow + 100)));
  EXPECT_FALSE(*outbox.retry(id, at(kNow + 100)));  // pending now, not failed
  EXPECT_EQ(outbox.claim_due(at(kNow + 100), at(kNow + 160), 10)->size(), 1u);
  ASSERT_TRUE(*outbox.mark_sent(id, 200));
  EXPECT_EQ(outbox.list("sent")->size(), 1u);
}

TEST(Url, SplitsHttpUrlsAndRefusesTheRest) {
  const auto parts = split_url("https://lms.example.edu:8443/a/b?c=d");
  ASSERT_TRUE(parts.has_value());
  EXPECT_TRUE(parts->https);
  EXPECT_EQ(parts->host, "lms.example.edu");
  EXPECT_EQ(parts->port, "8443");
  EXPECT_EQ(parts->target, "/a/b?c=d");
  EXPECT_EQ(split_url("http://[::1]/x")->host, "::1");
  EXPECT_EQ(split_url("https://h")->target, "/");
  EXPECT_EQ(split_url("https://user@h/x"), std::nullopt);
  EXPECT_EQ(split_url("ftp://h/x"), std::nullopt);
  EXPECT_EQ(split_url("https://h:99999/"), std::nullopt);
}

TEST(HttpClient, PlainHttpIsRefusedWithoutTheTestFlag) {
  BeastHttpClient client(/*allow_http=*/false);
  Result<HttpAnswer> answer = client.send({"GET", "http://127.0.0.1:9/jwks", {}, ""});
  ASSERT_FALSE(answer.ok());
  EXPECT_NE(answer.error().message.find("--lti-allow-http"), std::string::npos);
}

TEST(LtiConfig, PlatformUrlsMustBeHttpsUnlessAllowed) {
  const auto dir = key_file().parent_path();
  const auto file = dir / ("hg_lti_config_" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << R"({"base_url": "https://grader.example.edu", "private_key": ")"
                      << key_file().filename().string() << R"(", "kid": "k",
      "platforms": [{"issuer": "https://lms", "client_id": "c", "deployment_ids": ["d"],
        "auth_login_url": "http://lms/auth", "auth_token_url": "https://lms/token",
        "keyset_url": "https://lms/jwks"}]})";
  Result<LtiConfig> refused = load_lti_config(file, false);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().field, "platforms[0].auth_login_url");
  Result<LtiConfig> allowed = load_lti_config(file, true);
  ASSERT_TRUE(allowed.ok()) << allowed.error().message;
  EXPECT_EQ(allowed->launch_url(), "https://grader.example.edu/lti/launch");
  EXPECT_TRUE(allowed->https());
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace headgrader::lti

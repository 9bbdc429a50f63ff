// The Assignment and Grade Services client (LTI AGS 2.0): access tokens by the OAuth 2
// client-credentials grant with an RS256 client assertion (RFC 7523; iss = sub = client_id,
// aud = the token URL or auth_audience, a jti, limits::kLtiAssertionLifetime of life), cached
// until limits::kLtiTokenRenewMargin before they expire; and a score POSTed to
// {lineitem}/scores, a 401 fetching a new token once.
// Thread-safety: post_score() may be called from several threads.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "common/result.h"
#include "http_client.h"
#include "lti_config.h"
#include "once_set.h"

namespace headgrader::lti {

// One score to send (AGS §3.4): scoreGiven of scoreMaximum 1, Completed, FullyGraded.
struct Score {
  std::string lineitem;  // the launch's line item URL
  std::string user_id;   // the launch's sub
  double score_given = 0;
  std::string timestamp;  // RFC 3339, the grading's (the same on every retry)
};

// {lineitem}/scores with "/scores" before any query string ("…/items/9?type=x" ->
// "…/items/9/scores?type=x").
std::string scores_url(std::string_view lineitem);

// The score's JSON body, members in the order of AGS's example.
std::string score_body(const Score& score);

// The client assertion of the client-credentials grant for `platform`.
Result<std::string> client_assertion(const LtiConfig& config, const Platform& platform,
                                     Clock::time_point now);

// What a send came to. `status` is the scores endpoint's (0 when none answered).
struct SendOutcome {
  enum class Kind { kSent, kRetry, kFailed } kind = Kind::kRetry;
  int status = 0;
  std::string error;  // why, for kRetry and kFailed
};

class AgsClient {
 public:
  AgsClient(const LtiConfig& config, HttpClient& http) : config_(config), http_(http) {}

  // Sends `score` for `platform`: kSent on 2xx; kFailed on a 4xx other than 401 and 429;
  // a 401 gets a new token and one more try; kRetry for the rest (no answer, 429, 5xx, a
  // second 401, a token endpoint that failed).
  SendOutcome post_score(const Platform& platform, const Score& score, Clock::time_point now);

  // Token requests made (tests of caching).
  std::size_t token_requests() const;

 private:
  struct Token {
    std::string value;
    Clock::time_point renew_at;
  };
  Result<std::string> token(const Platform& platform, Clock::time_point now, bool fresh);

  const LtiConfig& config_;
  HttpClient& http_;
  mutable std::mutex mutex_;
  std::map<std::string, Token> tokens_;  // by issuer + "\n" + client_id
  std::size_t token_requests_ = 0;
};

}  // namespace headgrader::lti

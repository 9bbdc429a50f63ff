#include "ags_client.h"

#include <cmath>

#include "common/limits.h"
#include "common/secrets.h"
#include "common/url_encoding.h"
#include "jws.h"
#include "launch_verifier.h"

namespace headgrader::lti {
namespace {

constexpr const char* kScoreMediaType = "application/vnd.ims.lis.v1.score+json";
constexpr const char* kAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

std::string key_of(const Platform& platform) { return platform.issuer + "\n" + platform.client_id; }

}  // namespace

std::string scores_url(std::string_view lineitem) {
  const std::size_t query = lineitem.find('?');
  std::string path(lineitem.substr(0, query));
  while (path.ends_with('/')) path.pop_back();
  path += "/scores";
  if (query != std::string_view::npos) path += lineitem.substr(query);
  return path;
}

std::string score_body(const Score& score) {
  Json body = Json::object();
  body["timestamp"] = score.timestamp;
  body["scoreGiven"] = score.score_given;
  body["scoreMaximum"] = 1;
  body["activityProgress"] = "Completed";
  body["gradingProgress"] = "FullyGraded";
  body["userId"] = score.user_id;
  return body.dump();
}

Result<std::string> client_assertion(const LtiConfig& config, const Platform& platform,
                                     Clock::time_point now) {
  Json claims = Json::object();
  claims["iss"] = platform.client_id;
  claims["sub"] = platform.client_id;
  claims["aud"] = platform.assertion_audience();
  claims["iat"] = unix_seconds(now);
  claims["exp"] = unix_seconds(now + limits::kLtiAssertionLifetime);
  const std::optional<std::string> jti = random_token(16);
  if (!jti) return Error{ErrorCode::kInternalError, std::string(kRandomFailed), ""};
  claims["jti"] = *jti;
  return sign_rs256(config.private_key, config.kid, claims);
}

std::size_t AgsClient::token_requests() const {
  const std::lock_guard lock(mutex_);
  return token_requests_;
}

Result<std::string> AgsClient::token(const Platform& platform, Clock::time_point now, bool fresh) {
  {
    const std::lock_guard lock(mutex_);
    const auto it = tokens_.find(key_of(platform));
    if (!fresh && it != tokens_.end() && now < it->second.renew_at) return it->second.value;
    ++token_requests_;
  }
  Result<std::string> assertion = client_assertion(config_, platform, now);
  if (!assertion) return assertion.error();
  const FormFields form{{"grant_type", "client_credentials"},
                        {"client_assertion_type", kAssertionType},
                        {"client_assertion", *assertion},
                        {"scope", std::string(kScoreScope)}};
  Result<HttpAnswer> answer = http_.send(
      {"POST",
       platform.auth_token_url,
       {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}},
       encode_form(form)});
  if (!answer) return answer.error();
  if (answer->status != 200) {
    return Error{ErrorCode::kTokenRefused,
                 "the token endpoint answered " + std::to_string(answer->status), ""};
  }
  const std::optional<Json> body = parse_json_object(answer->body, limits::kLtiMaxTokenAnswerDepth);
  const auto access = body ? body->find("access_token") : Json::const_iterator();
  if (!body || access == body->end() || !access->is_string() ||
      access->get_ref<const std::string&>().empty()) {
    return Error{ErrorCode::kTokenRefused, "the token endpoint's answer has no access_token", ""};
  }
  std::chrono::seconds life = limits::kLtiDefaultTokenLifetime;
  if (const auto expires = body->find("expires_in");
      expires != body->end() && expires->is_number() && expires->get<double>() > 0 &&
      std::isfinite(expires->get<double>())) {
    life = std::chrono::seconds(static_cast<long long>(std::min(
        expires->get<double>(), static_cast<double>(limits::kLtiMaxTokenLifetime.count()))));
  }
  const Token token{access->get<std::string>(),
                    now + std::max(std::chrono::seconds(0), life - limits::kLtiTokenRenewMargin)};
  const std::lock_guard lock(mutex_);
  tokens_[key_of(platform)] = token;
  return token.value;
}

SendOutcome AgsClient::post_score(const Platform& platform, const Score& score,
                                  Clock::time_point now) {
  const std::string url = scores_url(score.lineitem);
  const std::string body = score_body(score);
  for (int attempt = 0; attempt < 2; ++attempt) {
    Result<std::string> access = token(platform, now, /*fresh=*/attempt > 0);
    if (!access) return {SendOutcome::Kind::kRetry, 0, access.error().message};
    Result<HttpAnswer> answer =
        http_.send({"POST",
                    url,
                    {{"Content-Type", kScoreMediaType}, {"Authorization", "Bearer " + *access}},
                    body});
    if (!answer) return {SendOutcome::Kind::kRetry, 0, answer.error().message};
    const int status = answer->status;
    if (status >= 200 && status < 300) return {SendOutcome::Kind::kSent, status, ""};
    if (status == 401 && attempt == 0) continue;  // the token was revoked or expired early
    const std::string why = "the scores endpoint answered " + std::to_string(status);
    if (status >= 400 && status < 500 && status != 401 && status != 429) {
      return {SendOutcome::Kind::kFailed, status, why};
    }
    if (status == 401) return {SendOutcome::Kind::kRetry, status, why + " with a new token too"};
    return {SendOutcome::Kind::kRetry, status, why};
  }
  return {SendOutcome::Kind::kRetry, 0, "unreachable"};
}

}  // namespace headgrader::lti

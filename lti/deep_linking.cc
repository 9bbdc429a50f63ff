#include "deep_linking.h"

#include "common/limits.h"
#include "common/secrets.h"
#include "jws.h"

namespace headgrader::lti {
namespace {
constexpr const char* kDlClaim = "https://purl.imsglobal.org/spec/lti-dl/claim/";

}  // namespace

Result<std::string> deep_linking_response(const LtiConfig& config, const LaunchBinding& binding,
                                          const DeepLinkChoice& choice, Clock::time_point now) {
  Json item = Json::object();
  item["type"] = "ltiResourceLink";
  item["title"] = choice.title;
  item["url"] = config.launch_url();
  item["custom"] = {{"problem", choice.problem_id}};
  item["lineItem"] = {
      {"scoreMaximum", 1}, {"label", choice.title}, {"resourceId", choice.problem_id}};
  Json claims = Json::object();
  claims["iss"] = binding.client_id;
  claims["aud"] = binding.issuer;
  claims["iat"] = unix_seconds(now);
  claims["exp"] = unix_seconds(now + limits::kLtiAssertionLifetime * 5);
  const std::optional<std::string> nonce = random_token(16);
  if (!nonce) return Error{ErrorCode::kInternalError, std::string(kRandomFailed), ""};
  claims["nonce"] = *nonce;
  claims[std::string(kLtiClaim) + "deployment_id"] = binding.deployment_id;
  claims[std::string(kLtiClaim) + "message_type"] = "LtiDeepLinkingResponse";
  claims[std::string(kLtiClaim) + "version"] = "1.3.0";
  claims[std::string(kDlClaim) + "content_items"] = Json::array({item});
  // The request's opaque data goes back unchanged when it had some (LTI-DL §4.2.4).
  if (!binding.deep_link_data.empty())
    claims[std::string(kDlClaim) + "data"] = binding.deep_link_data;
  return sign_rs256(config.private_key, config.kid, claims);
}

}  // namespace headgrader::lti

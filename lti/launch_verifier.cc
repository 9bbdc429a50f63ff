#include "launch_verifier.h"

#include <cmath>

#include "common/limits.h"
#include "common/secrets.h"
#include "jws.h"
#include "launch_identity.h"
#include "lti_check.h"

namespace headgrader::lti {
namespace {

constexpr const char* kDeepLinkingSettings =
    "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings";
constexpr const char* kAgsEndpoint = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint";

std::string claim(std::string_view name) { return std::string(kLtiClaim) + std::string(name); }

// A string member, or "" when absent or not a string.
std::string string_at(const Json& object, std::string_view key) {
  if (!object.is_object()) return {};
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A NumericDate (RFC 7519 §2) as seconds, or nullopt.
std::optional<double> numeric_date(const Json& payload, const char* name) {
  const auto it = payload.find(name);
  if (it == payload.end() || !it->is_number()) return std::nullopt;
  const double value = it->get<double>();
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

double seconds(Clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

bool audience_contains(const Json& aud, std::string_view client_id) {
  if (aud.is_string()) return aud == client_id;
  if (!aud.is_array()) return false;
  for (const Json& entry : aud) {
    if (entry.is_string() && entry == client_id) return true;
  }
  return false;
}

bool is_web_url(std::string_view url, bool allow_http) {
  return url.starts_with("https://") || (allow_http && url.starts_with("http://"));
}

}  // namespace

Result<VerifiedLaunch> verify_launch(const LaunchContext& context, std::string_view id_token,
                                     std::string_view expected_nonce, Clock::time_point now) {
  // Form, algorithm (pinned), kid: before any key is looked at.
  Result<Jws> parsed = parse_rs256_jws(id_token);
  if (!parsed) return parsed.error();
  const Jws& jws = *parsed;
  const Json& payload = jws.payload;

  // The platform, named by the (unverified) iss and aud: it says which keyset to use.
  const std::string issuer = string_at(payload, "iss");
  bool issuer_known = false;
  for (const Platform& platform : context.config.platforms) {
    issuer_known = issuer_known || platform.issuer == issuer;
  }
  if (!issuer_known) {
    return check_failure(check::kIssuer,
                         "the id_token's issuer \"" + shown(issuer) + "\" is not a known platform");
  }
  const Json aud = payload.contains("aud") ? payload.at("aud") : Json();
  const Platform* platform = nullptr;
  for (const Platform& candidate : context.config.platforms) {
    if (candidate.issuer == issuer && audience_contains(aud, candidate.client_id)) {
      platform = &candidate;
      break;
    }
  }
  if (platform == nullptr) {
    return check_failure(
        check::kAudience,
        "the id_token's audience holds none of this tool's client ids for " + shown(issuer));
  }

  Result<RsaKey> key = context.keys.key(*platform, jws.kid, now);
  if (!key) return key.error();
  if (!verify_rs256(*key, jws)) {
    return check_failure(
        check::kSignature,
        "the id_token's signature is not valid for the platform's key \"" + shown(jws.kid) + "\"");
  }

  // From here on the payload is the platform's word.
  const std::string azp = string_at(payload, "azp");
  if ((aud.is_array() && aud.size() > 1) || payload.contains("azp")) {
    if (azp != platform->client_id) {
      return check_failure(check::kAuthorizedParty,
                           "the id_token has several audiences and its azp is not this tool's "
                           "client id");
    }
  }
  const double skew = static_cast<double>(limits::kLtiClockSkew.count());
  const std::optional<double> exp = numeric_date(payload, "exp");
  if (!exp || seconds(now) > *exp + skew) {
    return check_failure(check::kExpiry,
                         exp ? "the id_token has expired" : "the id_token has no exp (expiry)");
  }
  const std::optional<double> iat = numeric_date(payload, "iat");
  if (!iat || *iat > seconds(now) + skew) {
    return check_failure(check::kIssuedAt, iat ? "the id_token is dated in the future"
                                               : "the id_token has no iat (issued at)");
  }

  const std::string nonce = string_at(payload, "nonce");
  if (nonce.empty() || !constant_time_equal(nonce, expected_nonce)) {
    return check_failure(check::kNonce, "the id_token's nonce is not the one of this login");
  }
  // Remembered while the token could be presented again, and never less than the memory.
  const Clock::time_point token_end{
      std::chrono::seconds(static_cast<long long>(std::min(*exp, 1e11))) + limits::kLtiClockSkew};
  Result<bool> first =
      context.once.consume("nonce", nonce, std::max(token_end, now + limits::kLtiNonceMemory), now);
  if (!first) return first.error();
  if (!*first) return check_failure(check::kNonce, "the id_token's nonce was used already");

  const std::string deployment = string_at(payload, claim("deployment_id"));
  if (!platform->knows_deployment(deployment)) {
    return check_failure(check::kDeployment, "the deployment \"" + shown(deployment) +
                                                 "\" is not registered for this platform");
  }
  if (string_at(payload, claim("version")) != "1.3.0") {
    return check_failure(check::kVersion, "the launch is not LTI version 1.3.0");
  }
  const std::string message_type = string_at(payload, claim("message_type"));
  if (message_type != kResourceLinkRequest && message_type != kDeepLinkingRequest) {
    return check_failure(check::kMessageType, "the message type \"" + shown(message_type) +
                                                  "\" is not " + std::string(kResourceLinkRequest) +
                                                  " or " + std::string(kDeepLinkingRequest));
  }
  const std::string subject = string_at(payload, "sub");
  if (subject.empty()) {
    return check_failure(check::kSubject, "the launch names no user (sub)");
  }

  VerifiedLaunch launch;
  launch.platform = platform;
  launch.message_type = message_type;
  LaunchBinding& binding = launch.binding;
  binding.issuer = issuer;
  binding.client_id = platform->client_id;
  binding.deployment_id = deployment;
  binding.subject = subject;
  binding.student = launch_identity(issuer, subject);
  binding.name = string_at(payload, "name");
  if (binding.name.empty()) {
    binding.name = string_at(payload, "given_name");
    const std::string family = string_at(payload, "family_name");
    if (!family.empty()) binding.name += (binding.name.empty() ? "" : " ") + family;
  }
  const Json empty = Json::object();
  const auto object_claim = [&](const std::string& name) -> const Json& {
    const auto it = payload.find(name);
    return it != payload.end() && it->is_object() ? *it : empty;
  };
  binding.context_id = string_at(object_claim(claim("context")), "id");
  binding.context_title = string_at(object_claim(claim("context")), "title");
  binding.resource_link_id = string_at(object_claim(claim("resource_link")), "id");

  if (message_type == kDeepLinkingRequest) {
    const Json& settings = object_claim(kDeepLinkingSettings);
    binding.deep_link_return_url = string_at(settings, "deep_link_return_url");
    if (!is_web_url(binding.deep_link_return_url, context.config.allow_http)) {
      return check_failure(check::kMessageType,
                           "the deep-linking request has no https deep_link_return_url");
    }
    binding.deep_link_data = string_at(settings, "data");
  } else {
    binding.problem = string_at(object_claim(claim("custom")), "problem");
    if (binding.problem.empty()) {
      return check_failure(check::kProblem,
                           "the link has no custom parameter problem (problem=ID)");
    }
    if (!context.problem_exists(binding.problem)) {
      return check_failure(check::kProblem, "the link names the problem \"" +
                                                shown(binding.problem) +
                                                "\", which the grader does not serve");
    }
    const Json& ags = object_claim(kAgsEndpoint);
    const auto scope = ags.find("scope");
    bool may_score = false;
    if (scope != ags.end() && scope->is_array()) {
      for (const Json& entry : *scope) may_score = may_score || entry == kScoreScope;
    }
    const std::string lineitem = string_at(ags, "lineitem");
    if (may_score && is_web_url(lineitem, context.config.allow_http)) binding.lineitem = lineitem;
  }
  launch.claims = payload;
  return launch;
}

}  // namespace headgrader::lti

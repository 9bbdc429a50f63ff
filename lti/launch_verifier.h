// Verifies a launch's id_token (LTI 1.3 core §5.1.3, API.md §11) in this order: the JWS form,
// RS256 pinned, kid, the platform (by iss, then the client id in aud), the signature with the
// platform's key, aud/azp, exp and iat with limits::kLtiClockSkew, the nonce (the login's,
// single use), the deployment, the version 1.3.0, the message type, sub, and for a resource
// link the custom `problem`. The state was checked before (login_state.h). The first failed
// check is the answer (lti_check.h); nothing in the token is trusted before its signature is.
// Thread-safety: verify_launch may run on several threads when its KeySource and OnceSet can.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "keyset_cache.h"
#include "launch_tokens.h"
#include "lti_config.h"
#include "once_set.h"

namespace headgrader::lti {

inline constexpr std::string_view kResourceLinkRequest = "LtiResourceLinkRequest";
inline constexpr std::string_view kDeepLinkingRequest = "LtiDeepLinkingRequest";
inline constexpr std::string_view kScoreScope =
    "https://purl.imsglobal.org/spec/lti-ags/scope/score";

struct VerifiedLaunch {
  const Platform* platform = nullptr;
  std::string message_type;
  LaunchBinding binding;  // everything but `expires`
  Json claims;            // the verified payload
};

struct LaunchContext {
  const LtiConfig& config;
  KeySource& keys;
  OnceSet& once;
  // Whether the server serves a problem with this id.
  std::function<bool(std::string_view)> problem_exists;
};

Result<VerifiedLaunch> verify_launch(const LaunchContext& context, std::string_view id_token,
                                     std::string_view expected_nonce, Clock::time_point now);

}  // namespace headgrader::lti

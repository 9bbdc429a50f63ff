// The Deep Linking 2.0 response (LTI-DL §4.2): a JWT signed by the tool that names the chosen
// problem as an ltiResourceLink with custom.problem and a lineItem (scoreMaximum 1), so the
// platform creates the link and its gradebook column; and the page that posts it back to the
// platform's deep_link_return_url.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "common/result.h"
#include "launch_tokens.h"
#include "lti_config.h"

namespace headgrader::lti {

struct DeepLinkChoice {
  std::string problem_id;
  std::string title;
};

// The signed LtiDeepLinkingResponse for the deep-linking launch `binding`.
Result<std::string> deep_linking_response(const LtiConfig& config, const LaunchBinding& binding,
                                          const DeepLinkChoice& choice, Clock::time_point now);

}  // namespace headgrader::lti

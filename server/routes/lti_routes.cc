// The LTI tool's routes of Router (API.md §11), answered by the LtiService once the router has
// checked the path and the method (route_table.h). They exist only with --lti.
#include "lti_service.h"
#include "router.h"

namespace headgrader::server {

Routed Router::on_lti_login(const RouteCall& call) const {
  return {service_.lti->login(call.request), "", std::nullopt};
}

Routed Router::on_lti_launch(const RouteCall& call) const {
  // No io thread ever waits on a platform: a launch that must fetch a keyset runs on the
  // long-work threads.
  if (service_.lti->waits_on_platform(call.request)) {
    return later([lti = service_.lti](const Request& same) -> Routed {
      return {lti->launch_fetching(same), "", std::nullopt};
    });
  }
  return {service_.lti->launch(call.request), "", std::nullopt};
}

Routed Router::on_lti_deep_link(const RouteCall& call) const {
  return {service_.lti->deep_link(call.request), "", std::nullopt};
}

Routed Router::on_lti_jwks(const RouteCall& call) const {
  return {service_.lti->jwks(call.request), "", std::nullopt};
}

}  // namespace headgrader::server

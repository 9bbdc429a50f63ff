// The --lti file (API.md §11): the tool's base URL, private key and key id, and the platforms
// (LMSs) it trusts, each with its issuer, client id, deployments and endpoints.
// Thread-safety: an LtiConfig is immutable once loaded.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "rsa_key.h"

namespace headgrader::lti {

struct Platform {
  std::string issuer;
  std::string client_id;
  std::vector<std::string> deployment_ids;
  std::string auth_login_url;
  std::string auth_token_url;
  std::string auth_audience;  // empty: the client assertion's aud is auth_token_url
  std::string keyset_url;

  bool knows_deployment(std::string_view id) const;
  const std::string& assertion_audience() const {
    return auth_audience.empty() ? auth_token_url : auth_audience;
  }
};

struct LtiConfig {
  std::string base_url;  // without a trailing '/'
  std::string kid;
  RsaKey private_key;
  std::vector<Platform> platforms;
  bool allow_http = false;  // --lti-allow-http: platform URLs may be http:// (tests)

  bool https() const { return base_url.starts_with("https://"); }
  std::string launch_url() const { return base_url + "/lti/launch"; }
  // The platform with this issuer and client id; with an empty client id, the only one with
  // this issuer (nullptr when there are none or several).
  const Platform* find(std::string_view issuer, std::string_view client_id = {}) const;
};

// Reads and checks FILE: every field present with the right type, URLs https:// (or http://
// with `allow_http`), the private key readable (relative to FILE's folder). Errors (code
// "invalid_lti_config") name the file and the field.
Result<LtiConfig> load_lti_config(const std::filesystem::path& file, bool allow_http);

}  // namespace headgrader::lti

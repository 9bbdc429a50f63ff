#include "lti_config.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "common/json.h"
#include "common/limits.h"
#include "jws.h"

namespace headgrader::lti {
namespace {

struct Reader {
  const std::filesystem::path& file;
  bool allow_http;

  Error error(const std::string& field, const std::string& message) const {
    return Error{ErrorCode::kInvalidLtiConfig, file.string() + ": " + field + ": " + message,
                 field};
  }

  Result<std::string> string(const Json& object, const std::string& key, const std::string& where,
                             bool required = true) const {
    const auto it = object.find(key);
    if (it == object.end()) {
      if (!required) return std::string();
      return error(where + key, "missing; a string is expected");
    }
    if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
      return error(where + key, "must be a non-empty string");
    }
    return it->get<std::string>();
  }

  Result<std::string> url(const Json& object, const std::string& key, const std::string& where,
                          bool required = true) const {
    Result<std::string> value = string(object, key, where, required);
    if (!value || value->empty()) return value;
    if (value->starts_with("https://")) return value;
    if (allow_http && value->starts_with("http://")) return value;
    return error(where + key, allow_http ? "must start with https:// or http://"
                                         : "must start with https:// (http:// only with "
                                           "--lti-allow-http, for tests)");
  }
};

}  // namespace

bool Platform::knows_deployment(std::string_view id) const {
  return std::find(deployment_ids.begin(), deployment_ids.end(), id) != deployment_ids.end();
}

const Platform* LtiConfig::find(std::string_view issuer, std::string_view client_id) const {
  const Platform* found = nullptr;
  for (const Platform& platform : platforms) {
    if (platform.issuer != issuer) continue;
    if (!client_id.empty()) {
      if (platform.client_id == client_id) return &platform;
      continue;
    }
    if (found != nullptr) return nullptr;  // ambiguous without a client id
    found = &platform;
  }
  return found;
}

Result<LtiConfig> load_lti_config(const std::filesystem::path& file, bool allow_http) {
  const Reader read{file, allow_http};
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error{ErrorCode::kInvalidLtiConfig, file.string() + ": cannot be read", ""};
  std::stringstream text;
  text << in.rdbuf();
  const std::optional<Json> root = parse_json_object(text.str(), limits::kLtiMaxConfigDepth);
  if (!root) {
    return Error{ErrorCode::kInvalidLtiConfig,
                 file.string() + ": not a JSON object (or a key appears twice)", ""};
  }
  for (const auto& [key, value] : root->items()) {
    if (key != "base_url" && key != "private_key" && key != "kid" && key != "platforms") {
      return read.error(key, "unknown field; the fields are base_url, private_key, kid, platforms");
    }
  }
  LtiConfig config;
  config.allow_http = allow_http;
  Result<std::string> base_url = read.string(*root, "base_url", "");
  if (!base_url) return base_url.error();
  if (!base_url->starts_with("https://") && !base_url->starts_with("http://")) {
    return read.error("base_url", "must be the tool's https:// URL, as the platforms reach it");
  }
  config.base_url = *base_url;
  while (config.base_url.ends_with('/')) config.base_url.pop_back();
  Result<std::string> kid = read.string(*root, "kid", "");
  if (!kid) return kid.error();
  config.kid = *kid;
  Result<std::string> key_path = read.string(*root, "private_key", "");
  if (!key_path) return key_path.error();
  std::filesystem::path key_file(*key_path);
  if (key_file.is_relative()) key_file = file.parent_path() / key_file;
  Result<RsaKey> key = load_private_key(key_file);
  if (!key) return read.error("private_key", key.error().message);
  config.private_key = *key;

  const auto platforms = root->find("platforms");
  if (platforms == root->end() || !platforms->is_array() || platforms->empty()) {
    return read.error("platforms", "must be a non-empty array of platforms");
  }
  for (std::size_t i = 0; i < platforms->size(); ++i) {
    const Json& entry = (*platforms)[i];
    const std::string where = "platforms[" + std::to_string(i) + "].";
    if (!entry.is_object()) return read.error(where, "must be an object");
    Platform platform;
    for (const auto& [key, value] : entry.items()) {
      static const char* const kKnown[] = {"issuer",         "client_id",      "deployment_ids",
                                           "auth_login_url", "auth_token_url", "auth_audience",
                                           "keyset_url"};
      if (std::find(std::begin(kKnown), std::end(kKnown), key) == std::end(kKnown)) {
        return read.error(where + key, "unknown field");
      }
    }
    const std::pair<const char*, std::string*> strings[] = {{"issuer", &platform.issuer},
                                                            {"client_id", &platform.client_id}};
    for (const auto& [name, out] : strings) {
      Result<std::string> value = read.string(entry, name, where);
      if (!value) return value.error();
      *out = *value;
    }
    const std::tuple<const char*, std::string*, bool> urls[] = {
        {"auth_login_url", &platform.auth_login_url, true},
        {"auth_token_url", &platform.auth_token_url, true},
        {"auth_audience", &platform.auth_audience, false},
        {"keyset_url", &platform.keyset_url, true}};
    for (const auto& [name, out, required] : urls) {
      // auth_audience is an identifier, often but not always a URL.
      Result<std::string> value = std::string(name) == "auth_audience"
                                      ? read.string(entry, name, where, required)
                                      : read.url(entry, name, where, required);
      if (!value) return value.error();
      *out = *value;
    }
    const auto ids = entry.find("deployment_ids");
    if (ids == entry.end() || !ids->is_array() || ids->empty()) {
      return read.error(where + "deployment_ids", "must be a non-empty array of strings");
    }
    for (const Json& id : *ids) {
      if (!id.is_string() || id.get_ref<const std::string&>().empty()) {
        return read.error(where + "deployment_ids", "must hold non-empty strings only");
      }
      platform.deployment_ids.push_back(id.get<std::string>());
    }
    if (config.find(platform.issuer, platform.client_id) != nullptr) {
      return read.error(where + "client_id", "this issuer and client id are listed twice");
    }
    config.platforms.push_back(std::move(platform));
  }
  return config;
}

}  // namespace headgrader::lti

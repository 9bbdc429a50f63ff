#include "keyset_cache.h"

#include "headgrader/limits.h"
#include "jws.h"
#include "lti_check.h"

namespace headgrader::lti {
std::size_t KeysetCache::fetches() const {
  const std::lock_guard lock(mutex_);
  return fetches_;
}

Result<bool> KeysetCache::fetch(const std::string& url, Keyset& keyset, Clock::time_point now) {
  {
    const std::lock_guard lock(mutex_);
    ++fetches_;
  }
  keyset.attempted_at = now;
  keyset.attempted = true;
  Result<HttpAnswer> answer = http_.send({"GET", url, {{"Accept", "application/json"}}, ""});
  if (!answer) {
    return check_failure(check::kKeyset,
                         "the platform's keyset could not be fetched: " + answer.error().message);
  }
  if (answer->status != 200) {
    return check_failure(check::kKeyset,
                         "the platform's keyset_url answered " + std::to_string(answer->status));
  }
  const std::optional<Json> jwks = parse_json_object(answer->body, limits::kLtiMaxKeysetDepth);
  const auto keys = jwks ? jwks->find("keys") : Json::const_iterator();
  if (!jwks || keys == jwks->end() || !keys->is_array()) {
    return check_failure(check::kKeyset,
                         "the platform's keyset_url did not answer a JWKS {\"keys\": [...]}");
  }
  // Keys that are not RS256 RSA signing keys (an EC key, an encryption key) are skipped,
  // not fatal: a keyset may hold keys for other uses.
  std::map<std::string, RsaKey> parsed;
  for (const Json& jwk : *keys) {
    if (!jwk.is_object()) continue;
    const auto kid = jwk.find("kid");
    if (kid == jwk.end() || !kid->is_string()) continue;
    Result<RsaKey> key = rsa_public_key_from_jwk(jwk);
    if (key) parsed.emplace(kid->get<std::string>(), *key);
  }
  keyset.keys = std::move(parsed);
  keyset.fetched_at = now;
  keyset.fetched = true;
  return true;
}

Result<RsaKey> KeysetCache::key(const Platform& platform, const std::string& kid,
                                Clock::time_point now) {
  Keyset* keyset = nullptr;
  {
    const std::lock_guard lock(mutex_);
    auto& slot = keysets_[platform.keyset_url];
    if (!slot) slot = std::make_unique<Keyset>();
    keyset = slot.get();
  }
  const std::lock_guard lock(keyset->mutex);
  bool may_fetch = !keyset->attempted || now - keyset->attempted_at >= refetch_interval_;
  const bool stale = !keyset->fetched || now - keyset->fetched_at >= limits::kLtiKeysetTtl;
  if (stale && may_fetch) {
    may_fetch = false;
    Result<bool> fetched = fetch(platform.keyset_url, *keyset, now);
    // A keyset that cannot be fetched again keeps serving the keys it had.
    if (!fetched && keyset->keys.empty()) return fetched.error();
  }
  if (const auto it = keyset->keys.find(kid); it != keyset->keys.end()) return it->second;
  // Unknown kid: the platform may have rotated its keys since the last fetch.
  if (may_fetch) {
    Result<bool> fetched = fetch(platform.keyset_url, *keyset, now);
    if (!fetched) return fetched.error();
    if (const auto it = keyset->keys.find(kid); it != keyset->keys.end()) return it->second;
  }
  if (!keyset->fetched) {
    return check_failure(check::kKeyset,
                         "the platform's keyset could not be fetched (tried less than " +
                             std::to_string(refetch_interval_.count()) + " ms ago)");
  }
  return check_failure(check::kKeyId, "the platform's keyset has no key \"" + shown(kid) + "\"");
}

}  // namespace headgrader::lti

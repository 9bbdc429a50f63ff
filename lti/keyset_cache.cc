#include "keyset_cache.h"

#include "common/limits.h"
#include "jws.h"
#include "lti_check.h"

namespace headgrader::lti {
std::size_t KeysetCache::fetches() const {
  const std::lock_guard lock(mutex_);
  return fetches_;
}

bool KeysetCache::answers_at_once(const Platform& platform, const std::string& kid,
                                  Clock::time_point now) const {
  const std::lock_guard lock(mutex_);
  const auto slot = keysets_.find(platform.keyset_url);
  if (slot == keysets_.end()) return false;
  const Keyset& keyset = *slot->second;
  return keyset.fetched && now - keyset.fetched_at < limits::kLtiKeysetTtl &&
         keyset.keys.contains(kid);
}

std::optional<RsaKey> KeysetCache::held(const Platform& platform, const std::string& kid) const {
  const std::lock_guard lock(mutex_);
  const auto slot = keysets_.find(platform.keyset_url);
  if (slot == keysets_.end()) return std::nullopt;
  const auto it = slot->second->keys.find(kid);
  if (it == slot->second->keys.end()) return std::nullopt;
  return it->second;
}

Result<std::map<std::string, RsaKey>> KeysetCache::download(const std::string& url) {
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
  return parsed;
}

std::optional<Result<bool>> KeysetCache::fetched(std::unique_lock<std::mutex>& lock,
                                                 const std::string& url, Keyset& keyset,
                                                 bool may_start, Clock::time_point now) {
  if (keyset.in_flight.valid()) {
    // Someone else's fetch: share its outcome rather than asking the platform again.
    const std::shared_future<Result<bool>> under_way = keyset.in_flight;
    lock.unlock();
    under_way.wait();
    lock.lock();
    return under_way.get();
  }
  if (!may_start) return std::nullopt;
  ++fetches_;
  keyset.attempted_at = now;
  keyset.attempted = true;
  std::promise<Result<bool>> outcome;
  keyset.in_flight = outcome.get_future().share();
  lock.unlock();
  Result<std::map<std::string, RsaKey>> keys = download(url);
  lock.lock();
  Result<bool> result = true;
  if (keys) {
    keyset.keys = std::move(keys).value();
    keyset.fetched_at = now;
    keyset.fetched = true;
  } else {
    result = keys.error();
  }
  keyset.in_flight = {};
  outcome.set_value(result);
  return result;
}

Result<RsaKey> KeysetCache::key(const Platform& platform, const std::string& kid,
                                Clock::time_point now) {
  std::unique_lock lock(mutex_);
  auto& slot = keysets_[platform.keyset_url];
  if (!slot) slot = std::make_unique<Keyset>();
  Keyset& keyset = *slot;  // stays put: keysets are never removed
  bool may_fetch = !keyset.attempted || now - keyset.attempted_at >= refetch_interval_;
  const bool stale = !keyset.fetched || now - keyset.fetched_at >= limits::kLtiKeysetTtl;
  if (stale) {
    if (std::optional<Result<bool>> done =
            fetched(lock, platform.keyset_url, keyset, may_fetch, now)) {
      may_fetch = false;
      // A keyset that cannot be fetched again keeps serving the keys it had.
      if (!*done && keyset.keys.empty()) return done->error();
    }
  }
  if (const auto it = keyset.keys.find(kid); it != keyset.keys.end()) return it->second;
  // Unknown kid: the platform may have rotated its keys since the last fetch.
  if (std::optional<Result<bool>> done =
          fetched(lock, platform.keyset_url, keyset, may_fetch, now)) {
    if (!*done) return done->error();
    if (const auto it = keyset.keys.find(kid); it != keyset.keys.end()) return it->second;
  }
  if (!keyset.fetched) {
    return check_failure(check::kKeyset,
                         "the platform's keyset could not be fetched (tried less than " +
                             std::to_string(refetch_interval_.count()) + " ms ago)");
  }
  return check_failure(check::kKeyId, "the platform's keyset has no key \"" + shown(kid) + "\"");
}

}  // namespace headgrader::lti

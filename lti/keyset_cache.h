// The platforms' public keys by kid, from each keyset_url (a JWKS, RFC 7517 §5). A keyset is
// fetched on first use and again after limits::kLtiKeysetTtl; an unknown kid fetches it once
// more (the platform rotated its keys), but not more often than once per
// limits::kLtiKeysetRefetchInterval per keyset, so tokens with made-up kids cannot make the
// tool hammer the platform.
// Thread-safety: key() may be called from several threads; fetches of one keyset are
// serialized.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "headgrader/limits.h"
#include "headgrader/result.h"
#include "http_client.h"
#include "lti_config.h"
#include "once_set.h"
#include "rsa_key.h"

namespace headgrader::lti {

class KeySource {
 public:
  virtual ~KeySource() = default;
  // The key `kid` of the platform, or a check failure naming kid (not in the keyset, even
  // after a refetch) or keyset (the keyset cannot be fetched or read).
  virtual Result<RsaKey> key(const Platform& platform, const std::string& kid,
                             Clock::time_point now) = 0;
};

class KeysetCache final : public KeySource {
 public:
  explicit KeysetCache(HttpClient& http, std::chrono::milliseconds refetch_interval =
                                             limits::kLtiKeysetRefetchInterval)
      : http_(http), refetch_interval_(refetch_interval) {}
  Result<RsaKey> key(const Platform& platform, const std::string& kid,
                     Clock::time_point now) override;

  // How many times keysets were fetched (tests of rotation and rate limiting).
  std::size_t fetches() const;

 private:
  struct Keyset {
    std::mutex mutex;  // serializes fetches of this keyset
    std::map<std::string, RsaKey> keys;
    Clock::time_point fetched_at{};    // last successful fetch
    Clock::time_point attempted_at{};  // last fetch, successful or not
    bool fetched = false, attempted = false;
  };

  // Replaces keyset.keys with what keyset_url holds (keeps them when the fetch fails);
  // keyset.mutex held.
  Result<bool> fetch(const std::string& url, Keyset& keyset, Clock::time_point now);

  HttpClient& http_;
  const std::chrono::milliseconds refetch_interval_;
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Keyset>> keysets_;  // by keyset_url
  std::size_t fetches_ = 0;
};

}  // namespace headgrader::lti

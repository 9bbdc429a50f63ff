// The platforms' public keys by kid, from each keyset_url (a JWKS, RFC 7517 §5). A keyset is
// fetched on first use and again after limits::kLtiKeysetTtl; an unknown kid fetches it once
// more (the platform rotated its keys), but not more often than once per
// limits::kLtiKeysetRefetchInterval per keyset, so tokens with made-up kids cannot make the
// tool hammer the platform.
// A fetch can take up to limits::kLtiFetchTimeout (a slow or hanging platform): no lock is
// held across it, so lookups that need no fetch (another platform's, or keys already known)
// answer at once, and lookups that need one while it is under way wait for that same fetch
// instead of starting their own. key() blocks its caller for as long as a fetch takes, so it
// must not be called from a thread that serves other connections (the server runs launches
// on its long-work threads: lti_service.h).
// Thread-safety: key() may be called from several threads.
#pragma once

#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "common/limits.h"
#include "common/result.h"
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

  // Whether key() would answer `kid` without fetching: the keyset is fresh and holds it.
  bool answers_at_once(const Platform& platform, const std::string& kid,
                       Clock::time_point now) const;
  // The key `kid` as the cache holds it, however old, never fetching; nullopt when it holds
  // none. (A launch judged answers_at_once uses this, so that it cannot start a fetch if the
  // keyset turns stale in between.)
  std::optional<RsaKey> held(const Platform& platform, const std::string& kid) const;

  // How many times keysets were fetched (tests of rotation, rate limiting and coalescing).
  std::size_t fetches() const;

 private:
  struct Keyset {
    std::map<std::string, RsaKey> keys;
    Clock::time_point fetched_at{};    // last successful fetch
    Clock::time_point attempted_at{};  // last fetch started, successful or not
    bool fetched = false, attempted = false;
    // The fetch under way, if any: its outcome (true, or why it failed).
    std::shared_future<Result<bool>> in_flight;
  };

  // Waits for the fetch of `keyset` under way, or starts one (when `may_start`) and waits for
  // it; `lock` (on mutex_) is released meanwhile and held again on return. Nullopt when none
  // was under way and none could start.
  std::optional<Result<bool>> fetched(std::unique_lock<std::mutex>& lock, const std::string& url,
                                      Keyset& keyset, bool may_start, Clock::time_point now);
  // The keys keyset_url holds; no lock held.
  Result<std::map<std::string, RsaKey>> download(const std::string& url);

  HttpClient& http_;
  const std::chrono::milliseconds refetch_interval_;
  mutable std::mutex mutex_;  // everything below and every Keyset; never held across a fetch
  std::map<std::string, std::unique_ptr<Keyset>> keysets_;  // by keyset_url
  std::size_t fetches_ = 0;
};

}  // namespace headgrader::lti

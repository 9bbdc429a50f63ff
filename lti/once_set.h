// Values that may be used once (a login's state, an id_token's nonce): the first consume()
// of a value wins, every later one until it expires is a replay. The store's table of
// single-use values implements this across servers (server/lti_tool/lti_store_adapter.h); the
// in-process MemoryOnceSet is correct for one server.
// Thread-safety: implementations are safe to call from any thread.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/result.h"

namespace headgrader::lti {

using Clock = std::chrono::system_clock;

class OnceSet {
 public:
  virtual ~OnceSet() = default;
  // Records `value` of `kind` ("state", "nonce") until `expires`. True when it was not recorded
  // (or its record had expired at `now`): the caller may use it. False: a replay. An Error
  // (store_unavailable) when the record cannot be made; the caller must refuse the value then.
  // Atomic: of concurrent calls with one value, at most one gets true.
  virtual Result<bool> consume(std::string_view kind, std::string_view value,
                               Clock::time_point expires, Clock::time_point now) = 0;
};

// The one key a (kind, value) pair is recorded under, by every implementation: "kind\nvalue"
// (a kind has no newline, so two pairs never share a key).
std::string once_key(std::string_view kind, std::string_view value);

class MemoryOnceSet final : public OnceSet {
 public:
  Result<bool> consume(std::string_view kind, std::string_view value, Clock::time_point expires,
                       Clock::time_point now) override;
  std::size_t size() const;

 private:
  void sweep(Clock::time_point now);  // drops expired records; mutex_ held

  mutable std::mutex mutex_;
  std::unordered_map<std::string, Clock::time_point> records_;  // "kind\n" + value -> expiry
  std::size_t inserts_since_sweep_ = 0;
};

}  // namespace headgrader::lti

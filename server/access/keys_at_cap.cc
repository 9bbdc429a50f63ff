#include "keys_at_cap.h"

namespace headgrader::server {

std::optional<store::TimeMs> KeysAtTheirCap::refused_until(std::string_view key,
                                                           store::TimeMs now) const {
  const std::lock_guard lock(mutex_);
  const auto held = until_.find(key);
  if (held == until_.end() || held->second <= now) return std::nullopt;
  return held->second;
}

void KeysAtTheirCap::hold(std::string_view key, store::TimeMs until, store::TimeMs now) {
  const std::lock_guard lock(mutex_);
  // At most one entry a key of the keys file, and only while it is at its cap.
  std::erase_if(until_, [now](const auto& entry) { return entry.second <= now; });
  if (until > now) until_.insert_or_assign(std::string(key), until);
}

}  // namespace headgrader::server

#include "once_set.h"

#include "common/limits.h"

namespace headgrader::lti {

std::string once_key(std::string_view kind, std::string_view value) {
  std::string key(kind);
  key += '\n';
  key += value;
  return key;
}

Result<bool> MemoryOnceSet::consume(std::string_view kind, std::string_view value,
                                    Clock::time_point expires, Clock::time_point now) {
  std::string key = once_key(kind, value);
  const std::lock_guard lock(mutex_);
  const auto [it, inserted] = records_.try_emplace(std::move(key), expires);
  if (!inserted) {
    if (it->second > now) return false;
    it->second = expires;
  }
  if (++inserts_since_sweep_ >= limits::kLtiOnceSweepInserts) sweep(now);
  return true;
}

std::size_t MemoryOnceSet::size() const {
  const std::lock_guard lock(mutex_);
  return records_.size();
}

void MemoryOnceSet::sweep(Clock::time_point now) {
  inserts_since_sweep_ = 0;
  std::erase_if(records_, [now](const auto& record) { return record.second <= now; });
}

}  // namespace headgrader::lti

#include "launch_tokens.h"

#include "common/limits.h"
#include "common/secrets.h"

namespace headgrader::lti {

std::string token_hash(std::string_view token) { return sha256_hex(token); }

Result<std::string> new_launch_token() {
  std::optional<std::string> token = random_token(limits::kLtiStudentTokenBytes);
  if (!token) return Error{ErrorCode::kInternalError, std::string(kRandomFailed), ""};
  return std::move(*token);
}

Result<std::string> MemoryLaunchTokens::issue(const LaunchBinding& binding) {
  Result<std::string> made = new_launch_token();
  if (!made) return made.error();
  std::string token = std::move(made).value();
  const std::lock_guard lock(mutex_);
  // Expired bindings go as new ones come, so memory holds one lifetime's launches.
  std::erase_if(bindings_,
                [now = Clock::now()](const auto& entry) { return entry.second.expires <= now; });
  bindings_[token_hash(token)] = binding;
  return token;
}

Result<std::optional<LaunchBinding>> MemoryLaunchTokens::find(std::string_view token,
                                                              Clock::time_point now) {
  return find_launch(token_hash(token), now);
}

Result<std::optional<LaunchBinding>> MemoryLaunchTokens::find_launch(std::string_view launch_id,
                                                                     Clock::time_point now) {
  const std::string hash(launch_id);
  const std::lock_guard lock(mutex_);
  const auto it = bindings_.find(hash);
  if (it == bindings_.end() || it->second.expires <= now) return std::optional<LaunchBinding>();
  return std::optional<LaunchBinding>(it->second);
}

}  // namespace headgrader::lti

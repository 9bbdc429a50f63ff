// The student token of a launch (API.md §11): an opaque random bearer token standing for one
// verified launch for limits::kLtiStudentTokenLifetime. Only its SHA-256 is kept. The store's
// table of student tokens implements LaunchTokens across servers; MemoryLaunchTokens is
// correct for one server (tokens die with the process, and students launch again).
// Thread-safety: implementations are safe to call from any thread.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "common/result.h"
#include "once_set.h"

namespace headgrader::lti {

// What a launch established. A deep-linking launch has an empty `problem` (its token cannot
// grade) and a return URL instead.
struct LaunchBinding {
  std::string student;  // ISSUER#sub, the record's `student`
  std::string issuer, client_id, deployment_id, subject;
  std::string name;     // as the platform sent it; may be empty
  std::string problem;  // the custom claim `problem`
  std::string context_id, context_title, resource_link_id;
  std::string lineitem;  // the AGS line item URL when the score scope was granted, else empty
  std::string deep_link_return_url, deep_link_data;  // LtiDeepLinkingRequest only
  Clock::time_point expires;
};

class LaunchTokens {
 public:
  virtual ~LaunchTokens() = default;
  // Keeps `binding` under the hash of a new random token and returns the token (never stored).
  virtual Result<std::string> issue(const LaunchBinding& binding) = 0;
  // The binding of `token` when it was issued and binding.expires is after `now`; nullopt
  // for any other token. An Error (store_unavailable) when the lookup fails.
  virtual Result<std::optional<LaunchBinding>> find(std::string_view token,
                                                    Clock::time_point now) = 0;
  // The same by the launch's id, token_hash(token): what a grading names the launch by.
  virtual Result<std::optional<LaunchBinding>> find_launch(std::string_view launch_id,
                                                           Clock::time_point now) = 0;
};

// SHA-256 of a token, hex: the key under which a token is stored.
std::string token_hash(std::string_view token);
// A fresh student token (limits::kLtiStudentTokenBytes random bytes, base64url); an
// internal_error when the system's generator fails.
Result<std::string> new_launch_token();

class MemoryLaunchTokens final : public LaunchTokens {
 public:
  Result<std::string> issue(const LaunchBinding& binding) override;
  Result<std::optional<LaunchBinding>> find(std::string_view token, Clock::time_point now) override;
  Result<std::optional<LaunchBinding>> find_launch(std::string_view launch_id,
                                                   Clock::time_point now) override;

 private:
  std::mutex mutex_;
  std::map<std::string, LaunchBinding> bindings_;  // token_hash -> binding
};

}  // namespace headgrader::lti

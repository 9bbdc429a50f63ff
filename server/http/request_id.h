// X-Request-Id (API.md §17): every answer carries one, and so does its access-log line, so that
// one complaint can be followed through a balancer's and the server's logs. A client's (or a
// proxy's) own id is kept when it is safe to echo and to log: 1 to limits::kMaxRequestIdBytes
// characters of [A-Za-z0-9._-]; anything else (too long, a space, a control character, a
// quote) is replaced by a fresh one, never cleaned up, so that a logged id is always one that
// was sent or one the server made.
// Thread-safety: pure functions; new_request_id may be called from any thread.
#pragma once

#include <string>
#include <string_view>

namespace headgrader::server {

// The header's name, as sent and as read.
inline constexpr std::string_view kRequestIdHeader = "X-Request-Id";

// Whether `id` is 1 to limits::kMaxRequestIdBytes characters of [A-Za-z0-9._-].
bool is_valid_request_id(std::string_view id);

// 32 lowercase hex digits from 128 random bits (a generator of each thread's own, seeded from
// std::random_device): unique across servers and restarts without any coordination. Not a
// secret: it is sent to the client and logged.
std::string new_request_id();

// `sent` when it is valid, else new_request_id().
std::string request_id_for(std::string_view sent);

}  // namespace headgrader::server

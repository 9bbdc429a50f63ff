// The one module that handles secrets (keys of §7, LTI states, nonces and student tokens of
// §11): SHA-256, HMAC-SHA-256, comparison in constant time and random tokens, all from
// OpenSSL 3, so that no other code hashes, compares or makes a secret its own way.
// Failures: a token the generator cannot make is a value (nullopt), never a weak token; a
// digest fails only when OpenSSL cannot allocate, and throws std::bad_alloc as any allocation.
// Thread-safety: pure functions (OpenSSL 3's generator is thread-safe).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace headgrader {

std::string sha256(std::string_view data);  // 32 raw bytes
// Lower-case hex of SHA-256(text): 64 characters.
std::string sha256_hex(std::string_view text);
std::string hmac_sha256(std::string_view key, std::string_view data);  // 32 raw bytes

// Whether a and b are equal, in time that depends on their lengths only.
bool constant_time_equal(std::string_view a, std::string_view b);

// `bytes` random bytes from the operating system's generator, as base64url without padding
// (32 bytes: 43 characters). Nullopt when the generator fails (never silently weak).
std::optional<std::string> random_token(std::size_t bytes);

// The message of a caller that could not have a token, for its error.
inline constexpr std::string_view kRandomFailed =
    "the system's random generator failed; nothing was made";

}  // namespace headgrader

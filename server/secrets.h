// The few primitives that handle secrets (keys of §7, student tokens of §11): SHA-256 as hex,
// comparison in constant time, and random tokens, all from OpenSSL 3. Kept in one file so
// that no other code compares or generates a secret its own way.
// Thread-safety: pure functions (OpenSSL's RAND is thread-safe).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace headgrader::server {

// Lower-case hex of SHA-256(text): 64 characters.
std::string sha256_hex(std::string_view text);

// Whether a and b are equal, in time that depends on their lengths only.
bool constant_time_equal(std::string_view a, std::string_view b);

// `bytes` random bytes from the operating system's generator, as base64url without padding
// (32 bytes: 43 characters). Nullopt when the generator fails (never silently weak).
std::optional<std::string> random_token(std::size_t bytes);

}  // namespace headgrader::server

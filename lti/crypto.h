// Small OpenSSL 3 helpers the LTI tool needs besides RSA: random tokens, SHA-256, HMAC-SHA-256
// and a comparison of secrets in constant time.
// Thread-safety: pure functions (OpenSSL 3's RNG is thread-safe).
#pragma once

#include <string>
#include <string_view>

namespace headgrader::lti {

// `bytes` random bytes from OpenSSL's CSPRNG, base64url-encoded. Throws std::runtime_error if
// the RNG fails (it never should once seeded; a token we cannot make must not be guessable).
std::string random_token(std::size_t bytes = 32);

std::string sha256(std::string_view data);                             // 32 raw bytes
std::string hmac_sha256(std::string_view key, std::string_view data);  // 32 raw bytes

// Equal contents, in time that depends only on the lengths.
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace headgrader::lti

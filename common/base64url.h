// base64url without padding (RFC 4648 §5, RFC 7515 §2), as JWS and JWK use it. Decoding is
// strict: no padding, no whitespace, no characters outside the alphabet, no length of 1 mod 4
// and no stray bits in the last character, so that one byte string has one encoding.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace headgrader {

std::string base64url_encode(std::string_view bytes);

// Nullopt when `text` is not the canonical unpadded base64url of some bytes.
std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace headgrader

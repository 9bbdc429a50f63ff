#include "common/base64url.h"

#include <array>
#include <cstdint>

namespace headgrader {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

}  // namespace

std::string base64url_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t word = (static_cast<std::uint8_t>(bytes[i]) << 16) |
                               (static_cast<std::uint8_t>(bytes[i + 1]) << 8) |
                               static_cast<std::uint8_t>(bytes[i + 2]);
    out += kAlphabet[(word >> 18) & 63];
    out += kAlphabet[(word >> 12) & 63];
    out += kAlphabet[(word >> 6) & 63];
    out += kAlphabet[word & 63];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest == 1) {
    const std::uint32_t word = static_cast<std::uint8_t>(bytes[i]) << 16;
    out += kAlphabet[(word >> 18) & 63];
    out += kAlphabet[(word >> 12) & 63];
  } else if (rest == 2) {
    const std::uint32_t word = (static_cast<std::uint8_t>(bytes[i]) << 16) |
                               (static_cast<std::uint8_t>(bytes[i + 1]) << 8);
    out += kAlphabet[(word >> 18) & 63];
    out += kAlphabet[(word >> 12) & 63];
    out += kAlphabet[(word >> 6) & 63];
  }
  return out;
}

std::optional<std::string> base64url_decode(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  std::uint32_t word = 0;
  int bits = 0;
  for (const char c : text) {
    const int value = sextet(c);
    if (value < 0) return std::nullopt;
    word = (word << 6) | static_cast<std::uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((word >> bits) & 0xFF);
    }
  }
  // The bits left over must be zero: "QR" and "QQ" would otherwise both decode to "A".
  if ((word & ((1u << bits) - 1)) != 0) return std::nullopt;
  return out;
}

}  // namespace headgrader

// Test-string generation of API.md §4. Only integer arithmetic modulo 2^64, so every machine
// and standard library draws the same strings.
#include "headgrader/strings.h"

#include <algorithm>
#include <limits>

namespace headgrader {

std::uint64_t SplitMix64::next() {
  state_ += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::vector<TokenString> draw_random_strings(std::uint64_t seed, std::uint64_t count,
                                             int max_length, int alphabet_size) {
  SplitMix64 rng(seed);
  std::vector<TokenString> strings;
  strings.reserve(count);
  for (std::uint64_t n = 0; n < count; ++n) {
    const auto length = 1 + rng.next() % static_cast<std::uint64_t>(max_length);
    TokenString s(length);
    for (auto& token : s) {
      token = static_cast<int>(rng.next() % static_cast<std::uint64_t>(alphabet_size));
    }
    strings.push_back(std::move(s));
  }
  return strings;
}

std::uint64_t exhaustive_count(std::uint64_t groups, int length) {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t total = 0, level = 1;
  for (int l = 1; l <= length; ++l) {
    if (groups != 0 && level > kMax / groups) return kMax;
    level *= groups;
    if (total > kMax - level) return kMax;
    total += level;
  }
  return total;
}

bool shortlex_less(const TokenString& a, const TokenString& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
}

bool decode_utf8(const std::string& text, std::vector<char32_t>& out) {
  out.clear();
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    int extra = 0;
    char32_t cp = 0;
    if (lead < 0x80) {
      cp = lead;
    } else if ((lead & 0xE0) == 0xC0) {
      extra = 1, cp = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      extra = 2, cp = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      extra = 3, cp = lead & 0x07;
    } else {
      return false;
    }
    if (i + extra >= text.size()) return false;  // truncated sequence
    for (int k = 1; k <= extra; ++k) {
      const auto cont = static_cast<unsigned char>(text[i + k]);
      if ((cont & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cont & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not characters.
    static constexpr char32_t kMinForLength[4] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMinForLength[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    out.push_back(cp);
    i += extra + 1;
  }
  return true;
}

std::string encode_utf8(char32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

}  // namespace headgrader

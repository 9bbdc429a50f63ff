// Which strings are tested (API.md §4): the representatives of each group of tokens that
// behave alike, the exhaustive set over them, and the random strings drawn with SplitMix64.
// Everything here is exact integer arithmetic, identical on every machine and standard
// library (std::uniform_int_distribution is not, so it is never used).
// Thread-safety: SplitMix64 is a value type; the free functions are pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace headgrader {

// A tested string as token indices into the problem's alphabet.
using TokenString = std::vector<int>;

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();

 private:
  std::uint64_t state_;
};

// Draws `count` strings exactly as API.md §4: length = 1 + next() mod max_length, then each
// token next() mod alphabet_size. Duplicates are kept (the caller drops them).
std::vector<TokenString> draw_random_strings(std::uint64_t seed, std::uint64_t count,
                                             int max_length, int alphabet_size);

// Number of strings of length 1..length over `groups` symbols, saturating at UINT64_MAX.
std::uint64_t exhaustive_count(std::uint64_t groups, int length);

// Orders tested strings as the report does: shorter first, then by alphabet position.
bool shortlex_less(const TokenString& a, const TokenString& b);

// UTF-8 helpers: problem alphabets and strings are sequences of Unicode code points.
// decode_utf8 returns false on malformed input.
bool decode_utf8(const std::string& text, std::vector<char32_t>& out);
std::string encode_utf8(char32_t code_point);

}  // namespace headgrader

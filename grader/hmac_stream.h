// Uniform whole numbers drawn from HMAC-SHA256(secret, message) (API.md §15): block k of the
// stream is SHA-256(h ‖ k as 8 bytes, big-endian), read as big-endian 32-bit words; a number
// below n by rejection. A student's variant (variant.h) and their member of a pool (pool.h) are
// drawn from it, so each depends on the secret, the id and the student alone.
// Thread-safety: one stream per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/secrets.h"

namespace headgrader {

class HmacStream {
 public:
  HmacStream(std::string_view secret, std::string_view message)
      : seed_(hmac_sha256(secret, message)) {}

  // A number below n (n ≥ 1), by rejection: words at or past the last multiple of n would
  // make the low numbers likelier.
  std::size_t below(std::size_t n) {
    const std::uint64_t words = std::uint64_t{1} << 32;
    const std::uint64_t limit = words - words % n;
    for (;;) {
      const std::uint64_t x = next_word();
      if (x < limit) return static_cast<std::size_t>(x % n);
    }
  }

 private:
  std::uint32_t next_word() {
    if (used_ == block_.size()) {
      std::string counter(8, '\0');
      for (int b = 0; b < 8; ++b) {
        counter[7 - b] = static_cast<char>((block_index_ >> (8 * b)) & 0xff);
      }
      block_ = sha256(seed_ + counter);
      ++block_index_;
      used_ = 0;
    }
    std::uint32_t word = 0;
    for (int b = 0; b < 4; ++b) {
      word = (word << 8) | static_cast<unsigned char>(block_[used_ + static_cast<std::size_t>(b)]);
    }
    used_ += 4;
    return word;
  }

  std::string seed_;
  std::string block_;
  std::size_t used_ = 0;
  std::uint64_t block_index_ = 0;
};

}  // namespace headgrader

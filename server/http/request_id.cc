#include "request_id.h"

#include <algorithm>
#include <cstdint>
#include <random>

#include "headgrader/limits.h"

namespace headgrader::server {

bool is_valid_request_id(std::string_view id) {
  return !id.empty() && id.size() <= limits::kMaxRequestIdBytes &&
         std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
         });
}

std::string new_request_id() {
  thread_local std::mt19937_64 random = [] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }();
  constexpr char kHex[] = "0123456789abcdef";
  std::string id(32, '0');
  for (int half = 0; half < 2; ++half) {
    std::uint64_t bits = random();
    for (int i = 0; i < 16; ++i, bits >>= 4)
      id[static_cast<std::size_t>(half * 16 + i)] = kHex[bits & 0xf];
  }
  return id;
}

std::string request_id_for(std::string_view sent) {
  return is_valid_request_id(sent) ? std::string(sent) : new_request_id();
}

}  // namespace headgrader::server

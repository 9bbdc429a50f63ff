#include "common/secrets.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <new>
#include <vector>

#include "common/base64url.h"

namespace headgrader {

std::string sha256(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // EVP_Digest fails only when OpenSSL cannot allocate.
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    throw std::bad_alloc();
  }
  return std::string(reinterpret_cast<const char*>(digest), length);
}

std::string sha256_hex(std::string_view text) {
  constexpr char kHex[] = "0123456789abcdef";
  const std::string digest = sha256(text);
  std::string hex;
  hex.reserve(2 * digest.size());
  for (const unsigned char byte : digest) {
    hex += kHex[byte >> 4];
    hex += kHex[byte & 0xF];
  }
  return hex;
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // HMAC with SHA-256 fails only when OpenSSL cannot allocate.
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest,
           &length) == nullptr) {
    throw std::bad_alloc();
  }
  return std::string(reinterpret_cast<const char*>(digest), length);
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return a.empty() || CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::optional<std::string> random_token(std::size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  if (RAND_bytes(raw.data(), static_cast<int>(raw.size())) != 1) return std::nullopt;
  return base64url_encode(std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size()));
}

}  // namespace headgrader

// RSA keys for RS256 through OpenSSL 3's EVP interface: a platform's public key from a JWK
// (`n`, `e`), the tool's private key from a PEM file (made by `headgrader lti keygen`), and
// the tool's public JWK for /.well-known/jwks.json.
// Thread-safety: keys are immutable once made; sharing them between threads is safe.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "common/json.h"
#include "common/result.h"

typedef struct evp_pkey_st EVP_PKEY;

namespace headgrader::lti {

class RsaKey {
 public:
  RsaKey() = default;
  // Takes ownership of `key`.
  explicit RsaKey(EVP_PKEY* key);

  EVP_PKEY* get() const { return key_.get(); }
  explicit operator bool() const { return key_ != nullptr; }
  int bits() const;

 private:
  std::shared_ptr<EVP_PKEY> key_;
};

// A public key from one JWK of a keyset: `kty` "RSA", `n` and `e` base64url big-endian
// integers, a modulus of limits::kLtiMinRsaBits..kLtiMaxRsaBits bits. A JWK whose `alg` or
// `use` is present and not RS256/sig is refused too. Errors name the member at fault.
Result<RsaKey> rsa_public_key_from_jwk(const Json& jwk);

// {"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid, "n": …, "e": …} of `key`.
Json public_jwk(const RsaKey& key, const std::string& kid);

// Reads a PEM private key (PKCS#8 or PKCS#1), refusing any key but RSA of at least
// limits::kLtiMinRsaBits bits.
Result<RsaKey> load_private_key(const std::filesystem::path& pem);

// A new RSA-2048 key written to `out` as PKCS#8 PEM, created with mode 0600 (never
// overwriting a file that exists).
Result<RsaKey> generate_private_key(const std::filesystem::path& out);

}  // namespace headgrader::lti

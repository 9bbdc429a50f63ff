#include "rsa_key.h"

#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/base64url.h"
#include "common/limits.h"

namespace headgrader::lti {
namespace {

Error key_error(std::string message, std::string field = "") {
  return Error{ErrorCode::kInvalidKey, std::move(message), std::move(field)};
}

struct BnFree {
  void operator()(BIGNUM* bn) const { BN_free(bn); }
};
using Bignum = std::unique_ptr<BIGNUM, BnFree>;

// A JWK integer: base64url of its big-endian bytes, without leading zero bytes (RFC 7518
// §6.3.1.1); a leading zero is tolerated, since some platforms emit one.
Result<Bignum> jwk_integer(const Json& jwk, const char* name) {
  const auto it = jwk.find(name);
  if (it == jwk.end() || !it->is_string()) {
    return key_error(std::string("the key has no \"") + name + "\" string", name);
  }
  const std::optional<std::string> bytes = base64url_decode(it->get_ref<const std::string&>());
  if (!bytes || bytes->empty()) {
    return key_error(std::string("the key's \"") + name + "\" is not base64url", name);
  }
  Bignum bn(BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes->data()),
                      static_cast<int>(bytes->size()), nullptr));
  if (!bn) return key_error("out of memory reading the key", name);
  return bn;
}

std::string bn_base64url(const BIGNUM* bn) {
  std::vector<unsigned char> bytes(static_cast<std::size_t>(BN_num_bytes(bn)));
  BN_bn2bin(bn, bytes.data());
  return base64url_encode(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::string openssl_reason() {
  char text[256] = "unknown reason";
  if (const unsigned long code = ERR_get_error(); code != 0) {
    ERR_error_string_n(code, text, sizeof text);
  }
  ERR_clear_error();
  return text;
}

}  // namespace

RsaKey::RsaKey(EVP_PKEY* key) : key_(key, EVP_PKEY_free) {}

int RsaKey::bits() const { return key_ ? EVP_PKEY_get_bits(key_.get()) : 0; }

Result<RsaKey> rsa_public_key_from_jwk(const Json& jwk) {
  if (!jwk.is_object()) return key_error("a key of the keyset is not a JSON object");
  const auto kty = jwk.find("kty");
  if (kty == jwk.end() || *kty != "RSA") {
    return key_error("the key's \"kty\" must be \"RSA\"", "kty");
  }
  if (const auto alg = jwk.find("alg"); alg != jwk.end() && *alg != "RS256") {
    return key_error("the key's \"alg\" is not RS256", "alg");
  }
  if (const auto use = jwk.find("use"); use != jwk.end() && *use != "sig") {
    return key_error("the key's \"use\" is not \"sig\"", "use");
  }
  Result<Bignum> n = jwk_integer(jwk, "n");
  if (!n) return n.error();
  Result<Bignum> e = jwk_integer(jwk, "e");
  if (!e) return e.error();
  const int bits = BN_num_bits(n->get());
  if (bits < limits::kLtiMinRsaBits || bits > limits::kLtiMaxRsaBits) {
    return key_error("the key's modulus has " + std::to_string(bits) + " bits; from " +
                         std::to_string(limits::kLtiMinRsaBits) + " to " +
                         std::to_string(limits::kLtiMaxRsaBits) + " are accepted",
                     "n");
  }
  if (!BN_is_odd(e->get()) || BN_is_one(e->get()) || BN_num_bits(e->get()) > 64) {
    return key_error("the key's exponent \"e\" is not a usable RSA exponent", "e");
  }

  OSSL_PARAM_BLD* builder = OSSL_PARAM_BLD_new();
  if (builder == nullptr) return key_error("out of memory reading the key");
  OSSL_PARAM* params = nullptr;
  if (OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, n->get()) == 1 &&
      OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, e->get()) == 1) {
    params = OSSL_PARAM_BLD_to_param(builder);
  }
  OSSL_PARAM_BLD_free(builder);
  if (params == nullptr) return key_error("out of memory reading the key");

  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr);
  const bool made = ctx != nullptr && EVP_PKEY_fromdata_init(ctx) == 1 &&
                    EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) == 1;
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  if (!made) return key_error("OpenSSL refused the key: " + openssl_reason());
  return RsaKey(key);
}

Json public_jwk(const RsaKey& key, const std::string& kid) {
  BIGNUM* n = nullptr;
  BIGNUM* e = nullptr;
  EVP_PKEY_get_bn_param(key.get(), OSSL_PKEY_PARAM_RSA_N, &n);
  EVP_PKEY_get_bn_param(key.get(), OSSL_PKEY_PARAM_RSA_E, &e);
  const Bignum n_owned(n), e_owned(e);
  Json jwk = Json::object();
  jwk["kty"] = "RSA";
  jwk["alg"] = "RS256";
  jwk["use"] = "sig";
  jwk["kid"] = kid;
  jwk["n"] = n != nullptr ? bn_base64url(n) : "";
  jwk["e"] = e != nullptr ? bn_base64url(e) : "";
  return jwk;
}

Result<RsaKey> load_private_key(const std::filesystem::path& pem) {
  BIO* bio = BIO_new_file(pem.c_str(), "r");
  if (bio == nullptr) {
    ERR_clear_error();
    return key_error(pem.string() + ": cannot read the private key: " + std::strerror(errno),
                     "private_key");
  }
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (key == nullptr) {
    return key_error(pem.string() + ": not a PEM private key (" + openssl_reason() + ")",
                     "private_key");
  }
  RsaKey owned(key);
  if (EVP_PKEY_is_a(key, "RSA") != 1 || owned.bits() < limits::kLtiMinRsaBits) {
    return key_error(pem.string() + ": the private key must be RSA of at least " +
                         std::to_string(limits::kLtiMinRsaBits) +
                         " bits (headgrader lti keygen --out FILE makes one)",
                     "private_key");
  }
  return owned;
}

Result<RsaKey> generate_private_key(const std::filesystem::path& out) {
  EVP_PKEY* key = EVP_RSA_gen(limits::kLtiGeneratedRsaBits);
  if (key == nullptr) return key_error("OpenSSL could not make a key: " + openssl_reason());
  RsaKey owned(key);
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    return key_error(out.string() + ": cannot create the key file: " + std::strerror(errno));
  }
  BIO* bio = BIO_new_fd(fd, BIO_CLOSE);
  const bool written =
      bio != nullptr &&
      PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr) == 1 &&
      BIO_flush(bio) == 1;
  if (bio != nullptr) {
    BIO_free(bio);
  } else {
    ::close(fd);
  }
  if (!written) {
    std::filesystem::remove(out);
    return key_error(out.string() + ": cannot write the key: " + openssl_reason());
  }
  return owned;
}

}  // namespace headgrader::lti

#include "jws.h"

#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <set>
#include <vector>

#include "common/base64url.h"
#include "common/limits.h"
#include "lti_check.h"

namespace headgrader::lti {
namespace {

constexpr std::string_view kRs256 = "RS256";

// Deepest nesting of arrays and objects in `text`, reading strings (and their escapes) as
// opaque; counted before parsing so that a deep document never reaches the parser.
std::size_t nesting_depth(std::string_view text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

struct MdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

}  // namespace

std::optional<Json> parse_json_object(std::string_view text, std::size_t max_depth) {
  if (nesting_depth(text) > max_depth) return std::nullopt;
  // One set of keys per open object; a key seen twice makes the document ambiguous (RFC 7515
  // §5.2 lets a parser take either), so it is refused.
  std::vector<std::set<std::string>> keys;
  bool duplicate = false;
  const auto callback = [&](int, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) {
      keys.emplace_back();
    } else if (event == Json::parse_event_t::object_end) {
      if (!keys.empty()) keys.pop_back();
    } else if (event == Json::parse_event_t::key && !keys.empty()) {
      if (!keys.back().insert(parsed.get<std::string>()).second) duplicate = true;
    }
    return true;
  };
  Json value = Json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/false);
  if (duplicate || value.is_discarded() || !value.is_object()) return std::nullopt;
  return value;
}

Result<Jws> parse_rs256_jws(std::string_view token) {
  if (token.size() > limits::kLtiMaxTokenBytes) {
    return check_failure(check::kFormat, "the id_token is larger than " +
                                             std::to_string(limits::kLtiMaxTokenBytes) + " bytes");
  }
  const std::size_t first = token.find('.');
  const std::size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    return check_failure(check::kFormat,
                         "the id_token is not a JWS in compact form (three parts joined by '.')");
  }
  const std::optional<std::string> header_bytes = base64url_decode(token.substr(0, first));
  const std::optional<std::string> payload_bytes =
      base64url_decode(token.substr(first + 1, second - first - 1));
  const std::optional<std::string> signature = base64url_decode(token.substr(second + 1));
  if (!header_bytes || !payload_bytes || !signature) {
    return check_failure(check::kFormat, "a part of the id_token is not unpadded base64url");
  }
  std::optional<Json> header = parse_json_object(*header_bytes, limits::kLtiMaxJsonDepth);
  if (!header) return check_failure(check::kFormat, "the id_token's header is not a JSON object");

  // The algorithm is pinned here, before the caller ever looks for a key.
  const auto alg = header->find("alg");
  if (alg == header->end() || !alg->is_string() || *alg != kRs256) {
    const std::string came = alg == header->end() ? "none given"
                             : alg->is_string()   ? "\"" + shown(alg->get<std::string>()) + "\""
                                                  : "not a string";
    return check_failure(check::kAlgorithm,
                         "the id_token's algorithm must be RS256; it is " + came);
  }
  if (header->contains("crit")) {
    return check_failure(check::kFormat, "the id_token's header has \"crit\" extensions");
  }
  const auto kid = header->find("kid");
  if (kid == header->end() || !kid->is_string() || kid->get_ref<const std::string&>().empty()) {
    return check_failure(check::kKeyId, "the id_token's header has no \"kid\" (key id)");
  }
  std::optional<Json> payload = parse_json_object(*payload_bytes, limits::kLtiMaxJsonDepth);
  if (!payload) {
    return check_failure(check::kFormat, "the id_token's payload is not a JSON object");
  }
  Jws jws;
  jws.kid = kid->get<std::string>();
  jws.header = std::move(*header);
  jws.payload = std::move(*payload);
  jws.signing_input = std::string(token.substr(0, second));
  jws.signature = std::move(*signature);
  return jws;
}

bool verify_rs256(const RsaKey& key, const Jws& jws) {
  if (!key || EVP_PKEY_is_a(key.get(), "RSA") != 1) return false;
  // PKCS#1 v1.5 signatures are exactly as long as the modulus.
  if (jws.signature.size() != static_cast<std::size_t>(EVP_PKEY_get_size(key.get()))) {
    return false;
  }
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pkey_ctx = nullptr;  // owned by ctx
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), &pkey_ctx, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_PKEY_CTX_set_rsa_padding(pkey_ctx, RSA_PKCS1_PADDING) != 1) {
    return false;
  }
  const int verified = EVP_DigestVerify(
      ctx.get(), reinterpret_cast<const unsigned char*>(jws.signature.data()), jws.signature.size(),
      reinterpret_cast<const unsigned char*>(jws.signing_input.data()), jws.signing_input.size());
  return verified == 1;
}

Result<std::string> sign_rs256(const RsaKey& private_key, const std::string& kid,
                               const Json& payload) {
  Json header = Json::object();
  header["alg"] = kRs256;
  header["typ"] = "JWT";
  header["kid"] = kid;
  std::string input = base64url_encode(header.dump()) + "." + base64url_encode(payload.dump());
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pkey_ctx = nullptr;
  std::size_t length = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(input.data());
  if (!ctx ||
      EVP_DigestSignInit(ctx.get(), &pkey_ctx, EVP_sha256(), nullptr, private_key.get()) != 1 ||
      EVP_PKEY_CTX_set_rsa_padding(pkey_ctx, RSA_PKCS1_PADDING) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &length, data, input.size()) != 1) {
    return Error{ErrorCode::kInternalError, "RS256 signing failed", ""};
  }
  std::string signature(length, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &length, data,
                     input.size()) != 1) {
    return Error{ErrorCode::kInternalError, "RS256 signing failed", ""};
  }
  signature.resize(length);
  return input + "." + base64url_encode(signature);
}

}  // namespace headgrader::lti

// JSON Web Signatures in compact form (RFC 7515) with one algorithm only: RS256 (RSASSA
// PKCS#1 v1.5 with SHA-256, RFC 7518 §3.3). parse_rs256_jws checks the form and pins the
// algorithm before any key is looked at, so `none`, HS256 (keyed with a public key) and every
// other algorithm are refused whatever key the caller would have picked.
// Thread-safety: pure functions.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "common/json.h"
#include "common/result.h"
#include "rsa_key.h"

namespace headgrader::lti {

// The prefix of the LTI 1.3 message claims (LTI Core §5.3), e.g. kLtiClaim + "message_type".
inline constexpr std::string_view kLtiClaim = "https://purl.imsglobal.org/spec/lti/claim/";

// A JWT's NumericDate (RFC 7519 §2: whole seconds since the epoch), as in iat and exp.
inline long long unix_seconds(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

struct Jws {
  Json header;                // a JSON object; alg == "RS256"
  Json payload;               // a JSON object, not yet trusted
  std::string kid;            // the header's key id, not empty
  std::string signing_input;  // "BASE64URL(header).BASE64URL(payload)"
  std::string signature;      // raw bytes
};

// Three base64url parts (strictly decoded), header and payload JSON objects without duplicate
// keys and nested at most limits::kLtiMaxJsonDepth, `alg` exactly "RS256", `kid` a non-empty
// string, at most limits::kLtiMaxTokenBytes. Errors are check failures (lti_check.h) naming
// token_format, alg or kid.
Result<Jws> parse_rs256_jws(std::string_view token);

// Whether `jws.signature` is `key`'s RS256 signature of `jws.signing_input`.
bool verify_rs256(const RsaKey& key, const Jws& jws);

// The compact JWS of `payload` with header {"alg": "RS256", "typ": "JWT", "kid": kid}.
Result<std::string> sign_rs256(const RsaKey& private_key, const std::string& kid,
                               const Json& payload);

// A JSON object from untrusted bytes: nullopt unless valid JSON, an object, nested at most
// `max_depth` and without a key twice in one object.
std::optional<Json> parse_json_object(std::string_view text, std::size_t max_depth);

}  // namespace headgrader::lti

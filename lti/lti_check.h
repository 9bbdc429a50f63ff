// The checks of an LTI 1.3 launch (API.md §11), each with a name for the log line, the HTTP
// status of its failure and what the student should tell the instructor. A failed check is an
// Error whose `code` is unauthorized (401) or forbidden (403) and whose `field` names the check.
// Thread-safety: constants and pure functions.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace headgrader::lti {

namespace check {
inline constexpr const char* kState = "state";          // missing, forged, expired, reused
inline constexpr const char* kFormat = "token_format";  // not three base64url JSON parts
inline constexpr const char* kAlgorithm = "alg";        // anything but RS256
inline constexpr const char* kKeyId = "kid";            // missing, or not in the keyset
inline constexpr const char* kKeyset = "keyset";        // the platform's JWKS unreachable
inline constexpr const char* kSignature = "signature";
inline constexpr const char* kIssuer = "iss";
inline constexpr const char* kAudience = "aud";
inline constexpr const char* kAuthorizedParty = "azp";
inline constexpr const char* kExpiry = "exp";
inline constexpr const char* kIssuedAt = "iat";
inline constexpr const char* kNonce = "nonce";
inline constexpr const char* kDeployment = "deployment_id";
inline constexpr const char* kVersion = "version";
inline constexpr const char* kMessageType = "message_type";
inline constexpr const char* kSubject = "sub";
inline constexpr const char* kProblem = "problem";  // custom claim missing or unknown
inline constexpr const char* kLogin = "login";      // a bad login initiation
}  // namespace check

// A failed check: 403 for an unknown deployment or problem (the launch is genuine but this
// course is not set up for it), 401 for everything else.
Error check_failure(const char* which, std::string message);

// `text` cut to `max` bytes with anything but printable ASCII as '?': what an attacker sent,
// made safe to quote in a log line or a page (which still escape it).
std::string shown(std::string_view text, std::size_t max = 40);

// What the page of a failed launch tells the student to pass on to the instructor.
std::string_view instructor_advice(std::string_view which);

}  // namespace headgrader::lti

// The codes of the contract's error body {"error": {"code", …}} (API.md §5), as an enum the
// compiler checks: code_name() and the HTTP layer's status table (server/http/error_response.cc)
// are switches without a default, so a code added here without its name or its status fails
// the -Werror build. Answers carry code_name(code), never the enumerator's number.
// Thread-safety: constants and pure functions.
#pragma once

#include <iosfwd>
#include <string_view>

namespace headgrader {

enum class ErrorCode {
  // The engine's checks of a body or a file (400); the engine produces only these.
  kInvalidJson,  // not JSON, or bad UTF-8
  kTooDeep,      // nesting over the cap
  kNotAnObject,  // body is not {…}
  kMissingField,
  kUnknownField,
  kDuplicateField,
  kWrongType,   // e.g. a string for a matrix
  kWrongShape,  // rows/columns do not fit
  kOutOfRange,  // non-finite, too big, too many
  // HTTP-only codes.
  kNotFound,
  kMethodNotAllowed,
  kBodyTooLarge,
  kUnsupportedMediaType,
  kHeaderTooLarge,
  kBadRequest,  // unparsable HTTP, a broken percent-encoding, a bad query parameter
  kTooManyConnections,
  // Part 2 (API.md §7–§11).
  kUnauthorized,         // 401, no or unknown key
  kForbidden,            // 403, role may not
  kStaffDisabled,        // 403, no --keys
  kStoreUnavailable,     // 503
  kIdempotencyConflict,  // 409
  kRateLimited,          // 429, with Retry-After
  kInvalidProblem,       // 422, PUT of a bad file
  // The problems folder cannot be written (a read-only mount) or --problems is one file (409).
  kProblemsReadOnly,
  // DELETE of a problem that a pool names (API.md §15): the pool must let go of it first (409).
  kProblemInPool,
  // Ours, not the client's: an answer we failed to compute (500).
  kInternalError,
  // Never sent to a client: the errors of starting the server, of the command line and of our
  // own calls to an LTI platform, which end as a message on stderr, in the log or in a
  // passback's last error. Should one ever reach an answer, it is our bug: 500.
  kUsage,             // a flag or variable of the server's command line (server/main/options.h)
  kKeysFile,          // the keys file cannot be read, parsed, edited or written
  kListenFailed,      // the address cannot be bound
  kTlsConfig,         // --tls-cert and --tls-key: unreadable, mismatched, refused by OpenSSL
  kInvalidLtiConfig,  // the --lti file
  kInvalidKey,        // an RSA key: our PEM, or a JWK of a platform's keyset
  kFetchFailed,       // an outgoing HTTP call got no answer (a keyset, a token, a score)
  kTokenRefused,      // the platform's token endpoint gave no access token
};

// The code as the error body writes it: "invalid_json", "wrong_shape", …
std::string_view code_name(ErrorCode code);

// Writes code_name(code) (test failures and messages read the name, not a number).
std::ostream& operator<<(std::ostream& out, ErrorCode code);

}  // namespace headgrader

#include "common/error_code.h"

#include <ostream>

namespace headgrader {

std::string_view code_name(ErrorCode code) {
  // No default: -Wswitch names an enumerator left without its name.
  switch (code) {
    case ErrorCode::kInvalidJson:
      return "invalid_json";
    case ErrorCode::kTooDeep:
      return "too_deep";
    case ErrorCode::kNotAnObject:
      return "not_an_object";
    case ErrorCode::kMissingField:
      return "missing_field";
    case ErrorCode::kUnknownField:
      return "unknown_field";
    case ErrorCode::kDuplicateField:
      return "duplicate_field";
    case ErrorCode::kWrongType:
      return "wrong_type";
    case ErrorCode::kWrongShape:
      return "wrong_shape";
    case ErrorCode::kOutOfRange:
      return "out_of_range";
    case ErrorCode::kNotFound:
      return "not_found";
    case ErrorCode::kMethodNotAllowed:
      return "method_not_allowed";
    case ErrorCode::kBodyTooLarge:
      return "body_too_large";
    case ErrorCode::kUnsupportedMediaType:
      return "unsupported_media_type";
    case ErrorCode::kHeaderTooLarge:
      return "header_too_large";
    case ErrorCode::kBadRequest:
      return "bad_request";
    case ErrorCode::kTooManyConnections:
      return "too_many_connections";
    case ErrorCode::kUnauthorized:
      return "unauthorized";
    case ErrorCode::kForbidden:
      return "forbidden";
    case ErrorCode::kStaffDisabled:
      return "staff_disabled";
    case ErrorCode::kStoreUnavailable:
      return "store_unavailable";
    case ErrorCode::kIdempotencyConflict:
      return "idempotency_conflict";
    case ErrorCode::kRateLimited:
      return "rate_limited";
    case ErrorCode::kInvalidProblem:
      return "invalid_problem";
    case ErrorCode::kProblemsReadOnly:
      return "problems_read_only";
    case ErrorCode::kProblemInPool:
      return "problem_in_pool";
    case ErrorCode::kInternalError:
      return "internal_error";
    case ErrorCode::kUsage:
      return "usage";
    case ErrorCode::kKeysFile:
      return "keys_file";
    case ErrorCode::kListenFailed:
      return "listen_failed";
    case ErrorCode::kTlsConfig:
      return "tls_config";
    case ErrorCode::kInvalidLtiConfig:
      return "invalid_lti_config";
    case ErrorCode::kInvalidKey:
      return "invalid_key";
    case ErrorCode::kFetchFailed:
      return "fetch_failed";
    case ErrorCode::kTokenRefused:
      return "token_refused";
  }
  // Only a cast makes a value that is no enumerator; it is ours to fix.
  return "internal_error";
}

std::ostream& operator<<(std::ostream& out, ErrorCode code) { return out << code_name(code); }

}  // namespace headgrader

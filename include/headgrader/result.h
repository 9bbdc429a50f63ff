// Errors as values. Every fallible engine call returns Result<T>: either the value or an
// Error carrying a machine-readable code, the top-level field at fault (if any; it may be the
// empty key "") and a message written for the person who has to act on it. No exception
// crosses the public API.
// Thread-safety: plain values; safe to share once built.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace headgrader {

// Codes of the contract's error body (API.md §5). The HTTP layer maps them to statuses in
// one table (server/error_response.cc); the engine only ever produces the first group.
namespace error_code {
inline constexpr const char* kInvalidJson = "invalid_json";   // not JSON, or bad UTF-8
inline constexpr const char* kTooDeep = "too_deep";           // nesting over the cap
inline constexpr const char* kNotAnObject = "not_an_object";  // body is not {…}
inline constexpr const char* kMissingField = "missing_field";
inline constexpr const char* kUnknownField = "unknown_field";
inline constexpr const char* kDuplicateField = "duplicate_field";
inline constexpr const char* kWrongType = "wrong_type";     // e.g. a string for a matrix
inline constexpr const char* kWrongShape = "wrong_shape";   // rows/columns do not fit
inline constexpr const char* kOutOfRange = "out_of_range";  // non-finite, too big, too many
// HTTP-only codes.
inline constexpr const char* kNotFound = "not_found";
inline constexpr const char* kMethodNotAllowed = "method_not_allowed";
inline constexpr const char* kBodyTooLarge = "body_too_large";
inline constexpr const char* kUnsupportedMediaType = "unsupported_media_type";
inline constexpr const char* kHeaderTooLarge = "header_too_large";
inline constexpr const char* kBadRequest = "bad_request";  // unparsable HTTP
inline constexpr const char* kTooManyConnections = "too_many_connections";
inline constexpr const char* kShuttingDown = "shutting_down";
// Part 2 (API.md §7–§11).
inline constexpr const char* kUnauthorized = "unauthorized";           // 401, no or unknown key
inline constexpr const char* kForbidden = "forbidden";                 // 403, role may not
inline constexpr const char* kStaffDisabled = "staff_disabled";        // 403, no --keys
inline constexpr const char* kStoreUnavailable = "store_unavailable";  // 503
inline constexpr const char* kIdempotencyConflict = "idempotency_conflict";  // 409
inline constexpr const char* kRateLimited = "rate_limited";        // 429, with Retry-After
inline constexpr const char* kInvalidProblem = "invalid_problem";  // 422, PUT of a bad file
// The problems folder cannot be written (a read-only mount) or --problems is one file (409).
inline constexpr const char* kProblemsReadOnly = "problems_read_only";
// Ours, not the client's: an answer we failed to compute (500).
inline constexpr const char* kInternalError = "internal_error";
}  // namespace error_code

struct Error {
  std::string code;     // one of error_code::*
  std::string message;  // what was expected and what came, in plain words
  std::string field;    // top-level key as sent (e.g. "W_Q"); empty: see has_field()
  // Set when the key at fault is the empty string itself: a client may send {"": 1}. Kept
  // beside `field` (not an optional) so that Error{code, message, ""} still means "no field".
  bool field_is_empty_key = false;

  // Whether a top-level key is at fault; `field` then names it (possibly "").
  bool has_field() const { return !field.empty() || field_is_empty_key; }
};

// An error blaming the top-level key `key` exactly as sent, including the empty key "".
inline Error key_error(std::string code, std::string message, std::string key) {
  const bool empty = key.empty();
  return Error{std::move(code), std::move(message), std::move(key), empty};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // Precondition: ok().
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }

  // Precondition: !ok().
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace headgrader

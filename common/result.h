// Errors as values. Every fallible engine call returns Result<T>: either the value or an
// Error carrying a machine-readable code, the top-level field at fault (if any; it may be the
// empty key "") and a message written for the person who has to act on it. No exception
// crosses the public API.
// Thread-safety: plain values; safe to share once built.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "common/error_code.h"

namespace headgrader {

struct Error {
  // What kind of error (common/error_code.h); an Error{} nobody filled in is ours.
  ErrorCode code = ErrorCode::kInternalError;
  std::string message;  // what was expected and what came, in plain words
  std::string field;    // top-level key as sent (e.g. "W_Q"); empty: see has_field()
  // Set when the key at fault is the empty string itself: a client may send {"": 1}. Kept
  // beside `field` (not an optional) so that Error{code, message, ""} still means "no field".
  bool field_is_empty_key = false;

  // Whether a top-level key is at fault; `field` then names it (possibly "").
  bool has_field() const { return !field.empty() || field_is_empty_key; }
};

// An error blaming the top-level key `key` exactly as sent, including the empty key "".
inline Error key_error(ErrorCode code, std::string message, std::string key) {
  const bool empty = key.empty();
  return Error{code, std::move(message), std::move(key), empty};
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

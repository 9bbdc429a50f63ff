// A JSON text written straight into a string, byte for byte what nlohmann::json's dump()
// gives for the same document (its shortest round-trip numbers, its escaping, no spaces),
// without building a tree first: the grade answer is written on every request, and a tree
// of a few hundred small arrays costs more than the grading. Strings given to value() must be
// valid UTF-8 (the report's are: problem ids and strings over a validated alphabet); bytes
// from a client go through untrusted_value().
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "headgrader/attention.h"

namespace headgrader {

// Whole numbers print as integers ([1, 0], not [1.0, 0.0]) and −0 as 0; beyond 2⁵³ a
// double may not be whole in the integer sense the reader expects, so it stays a double.
inline bool prints_as_integer(double x) {
  return x == std::floor(x) && std::fabs(x) < 9007199254740992.0;  // false for NaN and ±∞
}

// Well-formed UTF-8 as Unicode's table 3-7 defines it (no overlong forms, no surrogates,
// nothing past U+10FFFF): what nlohmann's dump() accepts.
bool is_valid_utf8(std::string_view bytes);

class JsonWriter {
 public:
  // `capacity`: the bytes to reserve, so that a text of about that size is not regrown.
  explicit JsonWriter(std::size_t capacity = 0) { out_.reserve(capacity); }

  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  // Then exactly one value. `name` is written as it is, unescaped: a key is one of the
  // contract's names (plain ASCII, no quote, backslash or control character).
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  // Bytes that may not be UTF-8 (a request target): as value() when they are; otherwise as
  // nlohmann's dump with error_handler_t::replace writes them, each bad sequence as U+FFFD.
  JsonWriter& untrusted_value(std::string_view bytes);
  JsonWriter& value(bool b);
  JsonWriter& null();
  JsonWriter& value(std::int64_t n);
  JsonWriter& value(std::uint64_t n);
  JsonWriter& value(int n) { return value(static_cast<std::int64_t>(n)); }
  JsonWriter& value(double x);  // always as a double ("1.0"); non-finite → null
  // As number_to_json: whole numbers as integers, −0 as 0, non-finite (a masked −∞) as null.
  JsonWriter& number(double x);
  JsonWriter& matrix(const Matrix& m);  // an array of rows of number()

  std::string take() { return std::move(out_); }

 private:
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket);
  void separate() {
    if (comma_due_) out_ += ',';
    comma_due_ = true;
  }

  std::string out_;
  bool comma_due_ = false;  // a value or a closed bracket came last in the current container
};

}  // namespace headgrader

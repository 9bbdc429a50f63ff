#include "headgrader/json_writer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
// nlohmann's own shortest round-trip formatting (Grisu2), the one its dump() uses for every
// double: std::to_chars' shortest form differs from it in a few last digits now and then.
#include <nlohmann/detail/conversions/to_chars.hpp>
#include <nlohmann/json.hpp>

namespace headgrader {

bool is_valid_utf8(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const auto* const end = p + bytes.size();
  const auto in = [](unsigned char c, unsigned lo, unsigned hi) { return c >= lo && c <= hi; };
  while (p != end) {
    const unsigned char lead = *p;
    if (lead < 0x80) {
      ++p;
      continue;
    }
    // The range of the second byte depends on the lead (table 3-7); the others are 80..BF.
    std::size_t length = 0;
    unsigned lo = 0x80, hi = 0xBF;
    if (in(lead, 0xC2, 0xDF)) {
      length = 2;
    } else if (in(lead, 0xE0, 0xEF)) {
      length = 3;
      if (lead == 0xE0) lo = 0xA0;  // no overlong forms
      if (lead == 0xED) hi = 0x9F;  // no surrogates
    } else if (in(lead, 0xF0, 0xF4)) {
      length = 4;
      if (lead == 0xF0) lo = 0x90;  // no overlong forms
      if (lead == 0xF4) hi = 0x8F;  // nothing past U+10FFFF
    } else {
      return false;  // a continuation byte, C0, C1 or F5..FF
    }
    if (static_cast<std::size_t>(end - p) < length || !in(p[1], lo, hi)) return false;
    for (std::size_t k = 2; k < length; ++k) {
      if (!in(p[k], 0x80, 0xBF)) return false;
    }
    p += length;
  }
  return true;
}

JsonWriter& JsonWriter::open(char bracket) {
  separate();
  out_ += bracket;
  comma_due_ = false;
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  out_ += bracket;
  comma_due_ = true;
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  separate();
  out_ += '"';
  out_ += name;
  out_ += "\":";
  comma_due_ = false;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  separate();
  out_ += '"';
  std::size_t plain = 0;  // start of the bytes not yet copied: copied in runs, not one by one
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (static_cast<unsigned char>(c) >= 0x20 && c != '"' && c != '\\') continue;
    out_.append(text.data() + plain, i - plain);
    plain = i + 1;
    switch (c) {
      case '"':
        out_ += "\\\"";
        break;
      case '\\':
        out_ += "\\\\";
        break;
      case '\b':
        out_ += "\\b";
        break;
      case '\f':
        out_ += "\\f";
        break;
      case '\n':
        out_ += "\\n";
        break;
      case '\r':
        out_ += "\\r";
        break;
      case '\t':
        out_ += "\\t";
        break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        out_ += "\\u00";
        out_ += kHex[(c >> 4) & 0xF];
        out_ += kHex[c & 0xF];
      }
    }
  }
  out_.append(text.data() + plain, text.size() - plain);
  out_ += '"';
  return *this;
}

JsonWriter& JsonWriter::untrusted_value(std::string_view bytes) {
  if (is_valid_utf8(bytes)) return value(bytes);
  // Rare (a client's stray bytes), so nlohmann's own replacement is used as is.
  separate();
  out_ += nlohmann::json(std::string(bytes))
              .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  separate();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t n) {
  separate();
  std::array<char, 24> buffer;
  out_.append(buffer.data(), std::to_chars(buffer.begin(), buffer.end(), n).ptr);
  return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t n) {
  separate();
  std::array<char, 24> buffer;
  out_.append(buffer.data(), std::to_chars(buffer.begin(), buffer.end(), n).ptr);
  return *this;
}

namespace {

// The most characters a number takes: "-1.2345678901234567e-308" is 24; nlohmann's to_chars
// also asks for room past the digits it writes.
constexpr std::size_t kMaxNumberChars = 32;

char* write_double(char* at, double x) {
  return nlohmann::detail::to_chars(at, at + kMaxNumberChars, x);
}

// As JsonWriter::number, into `at`, which has kMaxNumberChars of room.
char* write_number(char* at, double x) {
  if (!std::isfinite(x)) return std::copy_n("null", 4, at);
  if (prints_as_integer(x)) {
    return std::to_chars(at, at + kMaxNumberChars, static_cast<std::int64_t>(x)).ptr;
  }
  return write_double(at, x);
}

}  // namespace

JsonWriter& JsonWriter::value(double x) {
  if (!std::isfinite(x)) return null();
  separate();
  std::array<char, kMaxNumberChars> buffer;
  out_.append(buffer.data(), write_double(buffer.data(), x));
  return *this;
}

JsonWriter& JsonWriter::number(double x) {
  if (prints_as_integer(x)) return value(static_cast<std::int64_t>(x));
  return value(x);
}

// Written through a pointer into room made once: matrices are most of a failing answer's
// bytes, and appending them character by character cost more than printing their numbers.
JsonWriter& JsonWriter::matrix(const Matrix& m) {
  separate();
  const auto rows = static_cast<std::size_t>(m.rows()), cols = static_cast<std::size_t>(m.cols());
  const std::size_t start = out_.size();
  out_.resize(start + 2 + rows * (3 + cols * (kMaxNumberChars + 1)));  // an upper bound
  char* at = out_.data() + start;
  *at++ = '[';
  for (std::size_t i = 0; i < rows; ++i) {
    if (i > 0) *at++ = ',';
    *at++ = '[';
    for (std::size_t j = 0; j < cols; ++j) {
      if (j > 0) *at++ = ',';
      at = write_number(at, m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)));
    }
    *at++ = ']';
  }
  *at++ = ']';
  out_.resize(static_cast<std::size_t>(at - out_.data()));
  return *this;
}

}  // namespace headgrader

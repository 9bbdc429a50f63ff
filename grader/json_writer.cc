#include "json_writer.h"

#include <array>
#include <charconv>
#include <cmath>
// nlohmann's own shortest round-trip formatting (Grisu2), the one its dump() uses for every
// double: std::to_chars' shortest form differs from it in a few last digits now and then.
#include <nlohmann/detail/conversions/to_chars.hpp>

namespace headgrader {

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
  value(name);
  out_ += ':';
  comma_due_ = false;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  separate();
  out_ += '"';
  for (const char c : text) {
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
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out_ += "\\u00";
          out_ += kHex[(c >> 4) & 0xF];
          out_ += kHex[c & 0xF];
        } else {
          out_ += c;
        }
    }
  }
  out_ += '"';
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  separate();
  out_ += b ? "true" : "false";
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

JsonWriter& JsonWriter::value(double x) {
  separate();
  if (!std::isfinite(x)) {
    out_ += "null";
    return *this;
  }
  std::array<char, 64> buffer;
  out_.append(buffer.data(), nlohmann::detail::to_chars(buffer.data(), buffer.data() + 64, x));
  return *this;
}

JsonWriter& JsonWriter::number(double x) {
  if (prints_as_integer(x)) return value(static_cast<std::int64_t>(x));
  return value(x);
}

JsonWriter& JsonWriter::matrix(const Matrix& m) {
  begin_array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    begin_array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) number(m(i, j));
    end_array();
  }
  return end_array();
}

}  // namespace headgrader

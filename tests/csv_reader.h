// An RFC 4180 reader for the tests, written from the RFC, not from the server's writer: fields
// separated by commas, records by CRLF, a quoted field may hold commas, CRLF and "" for '"'.
#pragma once

#include <string>
#include <vector>

namespace headgrader::testing_csv {

// Splits RFC 4180 text into rows of fields (quoted fields may hold commas, quotes, CRLF).
inline std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false, field_started = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"' && !field_started) {
      quoted = field_started = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
      field_started = false;
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      rows.back().push_back(field);
      field.clear();
      field_started = false;
      rows.emplace_back();
      ++i;
    } else {
      field += c;
      field_started = true;
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

}  // namespace headgrader::testing_csv

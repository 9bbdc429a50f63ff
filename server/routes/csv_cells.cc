#include "csv_cells.h"

namespace headgrader::server {
namespace {

// A leading character that makes a spreadsheet read the cell as a formula. A tab and a carriage
// return count because some spreadsheets drop them on import and then read what follows.
bool starts_a_formula(std::string_view text) {
  if (text.empty()) return false;
  switch (text.front()) {
    case '=':
    case '+':
    case '-':
    case '@':
    case '\t':
    case '\r':
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

std::string csv_text_cell(std::string_view text) {
  if (!starts_a_formula(text)) return csv_field(text);
  return csv_field("'" + std::string(text));
}

}  // namespace headgrader::server

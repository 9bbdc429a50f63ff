// The cells of every CSV the server writes (API.md §8, §16): RFC 4180 quoting, and text that a
// spreadsheet would run as a formula written with a leading apostrophe (OWASP's CSV injection
// advice), since a student chooses their own name and a key's holder its own id.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace headgrader::server {

// One CSV field as RFC 4180 writes it: quoted (quotes doubled) when it holds a comma, a quote
// or a line break; otherwise unchanged.
std::string csv_field(std::string_view text);

// A text column's cell: `text` with a leading ' when it begins with =, +, -, @, a tab or a
// carriage return (the characters with which Excel, LibreOffice and Google Sheets start a
// formula or DDE call), then quoted as csv_field does. Numbers, times and booleans the server
// formats itself go through csv_field: a negative number must stay a number.
std::string csv_text_cell(std::string_view text);

}  // namespace headgrader::server

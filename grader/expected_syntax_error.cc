// The first error of an `expected` expression (expected_syntax_error.h): its message put
// together from parts, and ExpectedSyntaxError::render, the source line with a caret under
// the column at fault.
#include "expected_syntax_error.h"

#include <algorithm>
#include <string>
#include <utility>

namespace headgrader {

namespace expected_syntax {

void fail(std::size_t column, std::initializer_list<Part> parts) {
  std::string reason;
  for (const Part& part : parts) {
    if (part.is_number) {
      reason += std::to_string(part.number);
    } else {
      reason += part.quote ? "\"" + std::string(part.text) + "\"" : std::string(part.text);
    }
  }
  throw ParseFailure{{column, std::move(reason)}};
}

}  // namespace expected_syntax

std::string ExpectedSyntaxError::render(std::string_view source) const {
  constexpr std::size_t kContext = 60;  // characters shown each side of the caret on a long line
  const std::size_t col = std::min(column, source.size());
  const std::size_t newline = col == 0 ? std::string_view::npos : source.rfind('\n', col - 1);
  const std::size_t line_begin = newline == std::string_view::npos ? 0 : newline + 1;
  const std::size_t line_end = std::min(source.find('\n', col), source.size());
  std::string_view line = source.substr(line_begin, line_end - line_begin);
  std::size_t at = col - line_begin;
  std::string before, after;
  if (line.size() > 2 * kContext) {
    const auto continuation = [&](std::size_t i) { return (line[i] & 0xC0) == 0x80; };
    std::size_t from = at > kContext ? at - kContext : 0;
    std::size_t to = std::min(line.size(), at + kContext);
    while (from > 0 && continuation(from)) --from;
    while (to < line.size() && continuation(to)) ++to;
    before = from > 0 ? "..." : "";
    after = to < line.size() ? "..." : "";
    line = line.substr(from, to - from);
    at -= from;
  }
  // The caret lines up under multi-byte characters and tabs as a terminal shows them.
  // Other control characters are shown as spaces, so that they cannot disturb the display.
  std::string shown = before, caret(before.size(), ' ');
  for (std::size_t k = 0; k < line.size(); ++k) {
    const auto byte = static_cast<unsigned char>(line[k]);
    const bool control = (byte < 0x20 && byte != '\t') || byte == 0x7f;
    shown += control ? ' ' : line[k];
    if (k < at && (byte & 0xC0) != 0x80) caret += byte == '\t' ? '\t' : ' ';
  }
  return reason + "\n  " + shown + after + "\n  " + caret + "^";
}

}  // namespace headgrader

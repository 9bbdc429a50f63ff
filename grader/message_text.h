// Small pieces of the messages students and instructors read: quoting what they sent,
// counting, listing names, pointing at a line and column.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace headgrader {

// A key or string from the sender, as quoted in a message: at most 64 bytes, cut at a
// character boundary (so the message stays valid UTF-8), "…" marking a cut.
std::string shorten_for_message(const std::string& text);

// `text` in double quotes, as a message shows a string the sender typed or a tested string.
inline std::string in_quotes(std::string_view text) { return "\"" + std::string(text) + "\""; }

// "1 row" / "3 rows".
std::string count_of(std::size_t n, const char* singular, const char* plural);

// "W_q", "W_q and W_k", "W_q, W_k and W_V".
std::string list_names(const std::vector<std::string>& names);

// Two lists of numbers as "[1, 0.5]", each number at the fewest significant digits (6 at
// least, as a stream prints them; up to 17, which tells any two doubles apart) at which the
// two texts differ, when the lists differ: "gives [1, 0] where expected is [1, 0]" cannot be
// read, "[1, 0] where expected is [1, 4.94065645841247e-324]" can.
std::pair<std::string, std::string> lists_told_apart(std::span<const double> a,
                                                     std::span<const double> b);

// The line and column (both 1-based, columns counted in bytes) of the byte at `offset` of
// `text`, for messages that point into a file or a formula: "line 3, column 7".
struct TextPosition {
  std::size_t line = 1;
  std::size_t column = 1;
};
TextPosition position_in(std::string_view text, std::size_t offset);

}  // namespace headgrader

// Reading matrices (arrays of rows) from untrusted JSON, for submissions and problem files
// alike, with messages that name the matrix, the row and the column at fault.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "headgrader/attention.h"
#include "headgrader/limits.h"
#include "headgrader/report.h"
#include "headgrader/result.h"

namespace headgrader {

// "a string", "an array", "null", … for "…; it is a string".
std::string describe_json_type(const Json& value);

// A key or string from the sender, as quoted in a message: at most 64 bytes, cut at a
// character boundary (so the message stays valid UTF-8), "…" marking a cut.
std::string shorten_for_message(const std::string& text);

// "1 row" / "3 rows".
std::string count_of(std::size_t n, const char* singular, const char* plural);

// "W_q", "W_q and W_k", "W_q, W_k and W_V".
std::string list_names(const std::vector<std::string>& names);

// The line and column (both 1-based, columns counted in bytes) of the byte at `offset` of
// `text`, for messages that point into a file or a formula: "line 3, column 7".
struct TextPosition {
  std::size_t line = 1;
  std::size_t column = 1;
};
TextPosition position_in(std::string_view text, std::size_t offset);

// A non-empty rectangular array of arrays of finite numbers with |x| ≤ kMaxAbsEntry and at
// most kMaxMatrixRows rows and `max_columns` columns. `name` is how the matrix is named in
// messages (as the sender spelled it); Error::field is set to it.
Result<Matrix> parse_matrix(const Json& value, const std::string& name,
                            std::size_t max_columns = limits::kMaxMatrixColumns);

}  // namespace headgrader

// Reading the numbers of the rows the store's SQL returns (texts, as both databases give
// them); records are read by their column table (record_columns.h).
// Thread-safety: pure functions.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace headgrader::store::rows {

// The integer or real a column holds; 0 for NULL or for a text that is not one.
std::int64_t integer(const std::optional<std::string>& text);
double real(const std::optional<std::string>& text);

}  // namespace headgrader::store::rows

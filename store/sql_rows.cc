#include "sql_rows.h"

#include <charconv>

namespace headgrader::store::rows {

std::int64_t integer(const std::optional<std::string>& text) {
  std::int64_t value = 0;
  if (text) std::from_chars(text->data(), text->data() + text->size(), value);
  return value;
}

double real(const std::optional<std::string>& text) {
  double value = 0;
  if (text) std::from_chars(text->data(), text->data() + text->size(), value);
  return value;
}

}  // namespace headgrader::store::rows

#include "message_text.h"

#include <algorithm>
#include <iomanip>
#include <limits>
#include <sstream>

namespace headgrader {
namespace {

std::string list_text(std::span<const double> numbers, int digits) {
  std::ostringstream out;
  out << std::setprecision(digits) << '[';
  for (std::size_t i = 0; i < numbers.size(); ++i) out << (i ? ", " : "") << numbers[i];
  out << ']';
  return out.str();
}

}  // namespace

std::pair<std::string, std::string> lists_told_apart(std::span<const double> a,
                                                     std::span<const double> b) {
  constexpr int kFewest = 6;
  constexpr int kMost = std::numeric_limits<double>::max_digits10;
  std::pair<std::string, std::string> texts{list_text(a, kFewest), list_text(b, kFewest)};
  const bool differ = !std::equal(a.begin(), a.end(), b.begin(), b.end());
  for (int digits = kFewest + 1; differ && texts.first == texts.second && digits <= kMost;
       ++digits) {
    texts = {list_text(a, digits), list_text(b, digits)};
  }
  return texts;
}

std::string shorten_for_message(const std::string& text) {
  constexpr std::size_t kMax = 64;
  if (text.size() <= kMax) return text;
  std::size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "…";
}

std::string count_of(std::size_t n, const char* singular, const char* plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

std::string list_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
    out += names[i];
  }
  return out;
}

TextPosition position_in(std::string_view text, std::size_t offset) {
  TextPosition at;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++at.line;
      line_start = i + 1;
    }
  }
  at.column = offset - line_start + 1;
  return at;
}

}  // namespace headgrader

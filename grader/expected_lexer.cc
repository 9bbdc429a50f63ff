// The `expected` language's lexer (expected_lexer.h): numbers as API.md §3 writes them (a
// number too large is an error, one too small is 0), names, and symbols, two-character ones
// first; a character the language does not use is an error naming what to write instead.
#include "expected_lexer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <string>
#include <system_error>

#include "expected_syntax_error.h"
#include "headgrader/expected.h"

namespace headgrader {

namespace expected_syntax {
namespace {

constexpr std::array<std::string_view, 10> kKeywords = {"is", "any", "all", "count", "mean",
                                                        "at", "pos", "and", "or",    "not"};

// Punctuation and operators, two-character ones first so that "<=" is not read as "<".
constexpr std::array<std::string_view, 17> kSymbols = {
    "<=", ">=", "==", "!=", "<", ">", "(", ")", "[", "]", ",", "?", ":", "+", "-", "*", "/"};

// from_chars reports overflow and underflow alike; tell them apart by the decimal exponent
// of the first significant digit. Underflow is taken as 0.
bool overflows(std::string_view number) {
  const std::size_t e = std::min(number.find_first_of("eE"), number.size());
  const std::string_view mantissa = number.substr(0, e);
  long long exponent = 0;
  bool negative = false;
  for (char c : number.substr(std::min(e + 1, number.size()))) {
    if (c == '-') negative = true;
    if (is_digit(c)) exponent = std::min(exponent * 10 + (c - '0'), 1'000'000LL);
  }
  if (negative) exponent = -exponent;
  const std::size_t point = std::min(mantissa.find('.'), mantissa.size());
  const std::size_t first = mantissa.find_first_of("123456789");
  const long long magnitude = first < point ? static_cast<long long>(point - first) - 1
                                            : -static_cast<long long>(first - point);
  return magnitude + exponent > 0;
}

}  // namespace

bool is_keyword(std::string_view s) {
  return std::find(kKeywords.begin(), kKeywords.end(), s) != kKeywords.end();
}

Token Lexer::next() {
  while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\n')) ++p_;
  Token t{Token::kEnd, last_end_, last_end_, 0};
  if (p_ < s_.size()) {
    t.begin = p_;
    t.kind = symbol();
    t.end = p_;
    if (t.kind == Token::kNumber) t.number = number_value(t.begin);
    last_end_ = p_;
  }
  return t;
}

Token::Kind Lexer::symbol() {
  const char c = s_[p_];
  const char d = p_ + 1 < s_.size() ? s_[p_ + 1] : '\0';
  if (is_digit(c)) return number();
  if (is_letter(c)) {
    while (p_ < s_.size() && (is_letter(s_[p_]) || is_digit(s_[p_]))) ++p_;
    return Token::kName;
  }
  if (c == '.' && is_digit(d)) fail(p_, {"a number cannot start with \".\"; write 0", digits(p_)});
  for (std::string_view symbol : kSymbols) {
    if (s_.substr(p_, symbol.size()) == symbol) {
      p_ += symbol.size();
      return Token::kSymbol;
    }
  }
  const char* hint = c == '='   ? "; equality is written \"==\""
                     : c == '!' ? "; write \"!=\" to compare or \"not\" to negate"
                     : c == '&' ? "; write \"and\""
                     : c == '|' ? "; write \"or\""
                                : "";
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x80) fail(p_, {"unexpected character outside ASCII; the language uses only ASCII"});
  if (byte < 0x20 || byte == 0x7f) {
    fail(p_, {"unexpected control character (code ", std::size_t{byte}, ")"});
  }
  const Part shown = c == '"' ? Part("'\"'") : quoted(s_.substr(p_, 1));
  fail(p_, {"unexpected character ", shown, hint});
}

// digits [ "." digits ] [ ( "e" | "E" ) [ "+" | "-" ] digits ]
Token::Kind Lexer::number() {
  const std::size_t begin = p_;
  skip_digits();
  if (p_ < s_.size() && s_[p_] == '.') {
    if (p_ + 1 >= s_.size() || !is_digit(s_[p_ + 1])) {
      const std::string_view whole = s_.substr(begin, p_ - begin);
      fail(p_, {quoted(s_.substr(begin, p_ - begin + 1)), " is not a number; write ", whole, " or ",
                whole, ".0"});
    }
    ++p_;
    skip_digits();
  }
  if (p_ < s_.size() && (s_[p_] == 'e' || s_[p_] == 'E')) {
    std::size_t q = p_ + 1;
    if (q < s_.size() && (s_[q] == '+' || s_[q] == '-')) ++q;
    if (q >= s_.size() || !is_digit(s_[q])) {
      fail(p_, {quoted(s_.substr(begin, q - begin)),
                " is not a number; the exponent needs digits, as in 1e3"});
    }
    p_ = q;
    skip_digits();
  }
  return Token::kNumber;
}

double Lexer::number_value(std::size_t begin) const {
  const std::string_view text = s_.substr(begin, p_ - begin);
  double value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec == std::errc::result_out_of_range) {
    if (overflows(text)) fail(begin, {"the number ", quoted(text), " is too large"});
    value = 0;
  }
  return value;
}

std::string_view Lexer::digits(std::size_t from) const {
  std::size_t q = from + 1;
  while (q < s_.size() && is_digit(s_[q])) ++q;
  return s_.substr(from, q - from);
}
void Lexer::skip_digits() {
  while (p_ < s_.size() && is_digit(s_[p_])) ++p_;
}

}  // namespace expected_syntax

// A class is named as a name token is lexed, and by no keyword.
bool is_valid_class_name(std::string_view name) {
  using expected_syntax::is_digit;
  using expected_syntax::is_letter;
  if (name.empty() || !is_letter(name[0]) || expected_syntax::is_keyword(name)) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return is_letter(c) || is_digit(c); });
}

}  // namespace headgrader

// The words of the `expected` language (API.md §3): numbers, names and symbols, read one at
// a time by the compiler (expected_parser.cc). Private to the compiler.
#pragma once

#include <cstddef>
#include <string_view>

namespace headgrader::expected_syntax {

inline bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
// Whether `s` is one of the language's keywords (is, any, …, not), which no class may be named.
bool is_keyword(std::string_view s);

// A symbol or name is told apart by its text.
struct Token {
  enum Kind { kEnd, kNumber, kName, kSymbol } kind = kEnd;
  std::size_t begin = 0;  // kEnd: just after the last token, so the caret follows it
  std::size_t end = 0;
  double number = 0;
};

// Lexes on demand, so that the first error in the source is the one reported (it throws the
// ParseFailure of expected_syntax_error.h).
class Lexer {
 public:
  explicit Lexer(std::string_view source) : s_(source) {}

  Token next();

 private:
  Token::Kind symbol();
  Token::Kind number();
  double number_value(std::size_t begin) const;
  std::string_view digits(std::size_t from) const;
  void skip_digits();

  std::string_view s_;
  std::size_t p_ = 0;
  std::size_t last_end_ = 0;
};

}  // namespace headgrader::expected_syntax

// How the `expected` language's compiler reports the first error it finds (API.md §3): a
// message put together from parts, thrown to unwind the recursive descent, and given back by
// parse_expected as an ExpectedSyntaxError, whose render() quotes the source with a caret.
// Private to the compiler (expected_lexer.cc, expected_parser.cc).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

#include "headgrader/expected.h"

namespace headgrader::expected_syntax {

// Thrown inside the compiler only, to unwind the recursion; parse_expected turns it into a
// value.
struct ParseFailure {
  ExpectedSyntaxError error;
};

// A piece of an error message. Messages are put together only once an error is found, so
// that the parser's recursive frames hold no strings (hostile nesting costs less stack).
struct Part {
  Part(const char* text) : text(text) {}  // NOLINT: implicit by design, as are the others
  Part(std::string_view text, bool quote = false) : text(text), quote(quote) {}
  Part(const std::string& text) : text(text) {}
  Part(std::size_t number) : number(number), is_number(true) {}
  std::string_view text;
  bool quote = false;
  std::size_t number = 0;
  bool is_number = false;
};
inline Part quoted(std::string_view text) { return Part(text, true); }

// Throws the ParseFailure of the error at `column` whose message is `parts` in order.
[[noreturn, gnu::cold, gnu::noinline]] void fail(std::size_t column,
                                                 std::initializer_list<Part> parts);

}  // namespace headgrader::expected_syntax

// The `expected` language's compiler: a recursive-descent parser (one function per grammar
// rule of API.md §3) that checks names, operand kinds and vector lengths and emits the flat
// program of expected_program.h as it goes.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "expected_program.h"
#include "headgrader/expected.h"
#include "headgrader/limits.h"

namespace headgrader {

using expected_program::Instruction;
using expected_program::Op;

namespace {

constexpr std::array<std::string_view, 10> kKeywords = {"is", "any", "all", "count", "mean",
                                                        "at", "pos", "and", "or",    "not"};

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_keyword(std::string_view s) {
  return std::find(kKeywords.begin(), kKeywords.end(), s) != kKeywords.end();
}

// Punctuation and operators, two-character ones first so that "<=" is not read as "<".
constexpr std::array<std::string_view, 17> kSymbols = {
    "<=", ">=", "==", "!=", "<", ">", "(", ")", "[", "]", ",", "?", ":", "+", "-", "*", "/"};

// The binary operators of each grammar level.
using OperatorTable = std::span<const std::pair<std::string_view, Op>>;
constexpr std::array<std::pair<std::string_view, Op>, 1> kOr = {{{"or", Op::kOr}}};
constexpr std::array<std::pair<std::string_view, Op>, 1> kAnd = {{{"and", Op::kAnd}}};
constexpr std::array<std::pair<std::string_view, Op>, 6> kComparisons = {{{"<", Op::kLess},
                                                                          {"<=", Op::kLessEq},
                                                                          {">", Op::kGreater},
                                                                          {">=", Op::kGreaterEq},
                                                                          {"==", Op::kEqual},
                                                                          {"!=", Op::kNotEqual}}};
constexpr std::array<std::pair<std::string_view, Op>, 2> kSums = {
    {{"+", Op::kAdd}, {"-", Op::kSub}}};
constexpr std::array<std::pair<std::string_view, Op>, 2> kProducts = {
    {{"*", Op::kMul}, {"/", Op::kDiv}}};
constexpr std::array<std::pair<std::string_view, Op>, 5> kFunctions = {{{"is", Op::kIs},
                                                                        {"any", Op::kAny},
                                                                        {"all", Op::kAll},
                                                                        {"count", Op::kCount},
                                                                        {"mean", Op::kMean}}};

// A symbol or name is told apart by its text.
struct Token {
  enum Kind { kEnd, kNumber, kName, kSymbol } kind = kEnd;
  std::size_t begin = 0;  // kEnd: just after the last token, so the caret follows it
  std::size_t end = 0;
  double number = 0;
};

// Thrown inside the parser only, to unwind the recursion; parse_expected turns it into a value.
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
Part quoted(std::string_view text) { return Part(text, true); }

[[noreturn, gnu::cold, gnu::noinline]] void fail(std::size_t column,
                                                 std::initializer_list<Part> parts) {
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

// Lexes on demand, so that the first error in the source is the one reported.
class Lexer {
 public:
  explicit Lexer(std::string_view source) : s_(source) {}

  Token next() {
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

 private:
  Token::Kind symbol() {
    const char c = s_[p_];
    const char d = p_ + 1 < s_.size() ? s_[p_ + 1] : '\0';
    if (is_digit(c)) return number();
    if (is_letter(c)) {
      while (p_ < s_.size() && (is_letter(s_[p_]) || is_digit(s_[p_]))) ++p_;
      return Token::kName;
    }
    if (c == '.' && is_digit(d))
      fail(p_, {"a number cannot start with \".\"; write 0", digits(p_)});
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
    if (byte >= 0x80)
      fail(p_, {"unexpected character outside ASCII; the language uses only ASCII"});
    if (byte < 0x20 || byte == 0x7f) {
      fail(p_, {"unexpected control character (code ", std::size_t{byte}, ")"});
    }
    const Part shown = c == '"' ? Part("'\"'") : quoted(s_.substr(p_, 1));
    fail(p_, {"unexpected character ", shown, hint});
  }

  // digits [ "." digits ] [ ( "e" | "E" ) [ "+" | "-" ] digits ]
  Token::Kind number() {
    const std::size_t begin = p_;
    skip_digits();
    if (p_ < s_.size() && s_[p_] == '.') {
      if (p_ + 1 >= s_.size() || !is_digit(s_[p_ + 1])) {
        const std::string_view whole = s_.substr(begin, p_ - begin);
        fail(p_, {quoted(s_.substr(begin, p_ - begin + 1)), " is not a number; write ", whole,
                  " or ", whole, ".0"});
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

  double number_value(std::size_t begin) const {
    const std::string_view text = s_.substr(begin, p_ - begin);
    double value = 0;
    const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    if (result.ec == std::errc::result_out_of_range) {
      if (overflows(text)) fail(begin, {"the number ", quoted(text), " is too large"});
      value = 0;
    }
    return value;
  }

  std::string_view digits(std::size_t from) const {
    std::size_t q = from + 1;
    while (q < s_.size() && is_digit(s_[q])) ++q;
    return s_.substr(from, q - from);
  }
  void skip_digits() {
    while (p_ < s_.size() && is_digit(s_[p_])) ++p_;
  }

  std::string_view s_;
  std::size_t p_ = 0;
  std::size_t last_end_ = 0;
};

// A parsed sub-expression: how many values it leaves in the slots, and where it is in the
// source (for messages).
struct Operand {
  std::size_t length = 1;
  std::size_t begin = 0;
  std::size_t end = 0;
};

class Parser {
 public:
  Parser(std::string_view source, const ClassTable& classes)
      : s_(source), classes_(classes), known_classes_(list_classes(classes)), lexer_(source) {
    token_ = lexer_.next();
  }

  Expected::Program parse() {
    if (token_.kind == Token::kEnd) fail(0, {"the expression is empty"});
    const Operand result = cond();
    if (token_.kind != Token::kEnd) {
      fail(token_.begin,
           {"expected an operator or the end of the expression but found ", describe(token_)});
    }
    Expected::Program program;
    program.code = std::move(code_);
    program.output_size = result.length;
    program.slot_count = slot_count_;
    std::sort(named_.begin(), named_.end());
    named_.erase(std::unique(named_.begin(), named_.end()), named_.end());
    program.named_classes = named_;
    program.alphabet_size = classes_.alphabet_size;
    for (const std::vector<bool>& members : classes_.members) {
      for (std::size_t t = 0; t < classes_.alphabet_size; ++t) {
        program.membership.push_back(t < members.size() && members[t]);
      }
    }
    return program;
  }

 private:
  struct Nesting {
    explicit Nesting(Parser& p) : p_(p) {
      if (++p_.depth_ > limits::kMaxExpectedNesting) {
        fail(p_.token_.begin, {"the expression is nested too deeply (more than ",
                               limits::kMaxExpectedNesting, " levels)"});
      }
    }
    ~Nesting() { --p_.depth_; }
    Parser& p_;
  };

  // cond = or [ "?" cond ":" cond ]
  Operand cond() {
    const Nesting nesting(*this);
    const Operand c = disjunction();
    if (!at("?")) return c;
    const Token q = take();
    if (c.length != 1) {
      fail(q.begin, {"the condition of \"?:\" must be a number; it is a vector of ", c.length});
    }
    const Operand a = cond();
    expect(":");
    const Operand b = cond();
    if (a.length != b.length) {
      fail(q.begin, {"the two branches of \"?:\" must have the same length; ", text(a), " has ",
                     a.length, " and ", text(b), " has ", b.length});
    }
    const auto base = static_cast<std::uint32_t>(sp_ - 1 - 2 * a.length);
    const auto n = static_cast<std::uint32_t>(a.length);
    code_.push_back({Op::kSelect, base, base + 1, base + 1 + n, n, 0});
    sp_ = base + n;
    return {a.length, c.begin, b.end};
  }

  // or = and { "or" and }
  Operand disjunction() { return chain(&Parser::conjunction, kOr); }
  // and = not { "and" not }
  Operand conjunction() { return chain(&Parser::negation, kAnd); }

  // not = "not" not | cmp
  Operand negation() {
    if (!at("not")) return comparison();
    const Nesting nesting(*this);
    const Token op = take();
    const Operand x = negation();
    return unary(Op::kNot, op, x);
  }

  // cmp = sum [ ( "<" | "<=" | ">" | ">=" | "==" | "!=" ) sum ]
  Operand comparison() {
    const Operand result = chain(&Parser::sum, kComparisons, 1);
    if (operator_at(kComparisons)) {
      fail(token_.begin, {"comparisons cannot be chained; join two comparisons with \"and\""});
    }
    return result;
  }

  // sum = prod { ( "+" | "-" ) prod }
  Operand sum() { return chain(&Parser::product, kSums); }
  // prod = unary { ( "*" | "/" ) unary }
  Operand product() { return chain(&Parser::sign, kProducts); }

  // operand { operator operand }, left to right, at most `limit` operators; both operands of
  // each operator must be numbers.
  Operand chain(Operand (Parser::*operand)(), OperatorTable operators,
                std::size_t limit = SIZE_MAX) {
    Operand lhs = (this->*operand)();
    for (std::size_t n = 0; n < limit && operator_at(operators); ++n) {
      const Op op = *operator_at(operators);
      const Token t = take();
      require_scalar(lhs, t, "the left side");
      const Operand rhs = (this->*operand)();
      require_scalar(rhs, t, "the right side");
      // arg keeps the column of the operator, for the fault of a division by zero.
      const auto a = static_cast<std::uint32_t>(sp_ - 2);
      code_.push_back({op, a, a, a + 1, static_cast<std::uint32_t>(t.begin), 0});
      --sp_;
      lhs = {1, lhs.begin, rhs.end};
    }
    return lhs;
  }

  // unary = "-" unary | atom
  Operand sign() {
    if (!at("-")) return atom();
    const Nesting nesting(*this);
    const Token op = take();
    const Operand x = sign();
    return unary(Op::kNeg, op, x);
  }

  // atom = number | "pos" | fn "(" class ")" | "at" "(" expr "," class ")"
  //      | "[" expr { "," expr } "]" | "(" expr ")"
  Operand atom() {
    const Token t = token_;
    if (t.kind == Token::kNumber) {
      take();
      return leaf(Op::kConst, 0, t.number, t);
    }
    if (at("(")) {
      take();
      const Operand inner = cond();
      const Token close = expect(")");
      return {inner.length, t.begin, close.end};
    }
    if (at("[")) return vector();
    if (t.kind != Token::kName) fail(t.begin, {"expected an expression but found ", describe(t)});
    const std::string_view word = name(t);
    take();
    if (word == "pos") return leaf(Op::kPos, 0, 0, t);
    for (const auto& [fn, op] : kFunctions) {
      if (word != fn) continue;
      expect("(");
      const auto c = static_cast<std::uint32_t>(class_name());
      const Token close = expect(")");
      return {leaf(op, c, 0, t).length, t.begin, close.end};
    }
    if (word == "at") {
      expect("(");
      const Operand k = cond();
      if (k.length != 1) {
        fail(k.begin,
             {"the position k of \"at(k, C)\" must be a number; it is a vector of ", k.length});
      }
      expect(",");
      const auto c = static_cast<std::uint32_t>(class_name());
      const Token close = expect(")");
      const auto slot = static_cast<std::uint32_t>(sp_ - 1);
      code_.push_back({Op::kAt, slot, slot, 0, c, 0});
      return {1, t.begin, close.end};
    }
    reject_name(t);
  }

  // A name that cannot start an atom; kept out of atom() so that its frame stays small.
  [[noreturn, gnu::cold, gnu::noinline]] void reject_name(const Token& t) const {
    const std::string_view word = name(t);
    if (word == "not") {  // e.g. "1 + not 0": "not" binds looser than "+"
      fail(t.begin,
           {"expected an expression but found \"not\"; put \"not ...\" in parentheses here"});
    }
    if (is_keyword(word)) fail(t.begin, {"expected an expression but found ", describe(t)});
    if (find_class(word) >= 0) {
      fail(t.begin, {quoted(word), " is a class, not a number; use it as in is(", word, "), count(",
                     word, ") or at(k, ", word, ")"});
    }
    fail(t.begin, {"unknown name ", quoted(word),
                   "; expected a number, pos, is(C), any(C), all(C), count(C), mean(C), "
                   "at(k, C), ( or ["});
  }

  // "[" expr { "," expr } "]", each element a number
  Operand vector() {
    const Token open = take();
    std::size_t length = 0;
    while (true) {
      const Operand element = cond();
      if (element.length != 1) {
        fail(element.begin,
             {"a vector holds numbers, not vectors; this element is a vector of ", element.length});
      }
      ++length;
      if (at("]")) break;
      if (!at(",")) {
        fail(token_.begin, {"expected \",\" or \"]\" but found ", describe(token_)});
      }
      take();
    }
    const Token close = take();
    return {length, open.begin, close.end};
  }

  int class_name() {
    const Token t = token_;
    if (t.kind != Token::kName) {
      fail(t.begin, {"expected a class name but found ", describe(t), "; ", known_classes_});
    }
    const std::string_view word = name(t);
    if (is_keyword(word)) {
      fail(t.begin, {quoted(word), " is a keyword, not a class; ", known_classes_});
    }
    const int c = find_class(word);
    if (c < 0) fail(t.begin, {"unknown class ", quoted(word), "; ", known_classes_});
    take();
    named_.push_back(c);
    return c;
  }

  int find_class(std::string_view word) const {
    const auto it = std::find(classes_.names.begin(), classes_.names.end(), word);
    return it == classes_.names.end() ? -1 : static_cast<int>(it - classes_.names.begin());
  }
  static std::string list_classes(const ClassTable& classes) {
    if (classes.names.empty()) return "the problem defines no classes";
    std::string list = "the known classes are ";
    for (std::size_t c = 0; c < classes.names.size(); ++c) {
      list += (c ? ", " : "") + classes.names[c];
    }
    return list;
  }

  // --- Emitting code: sp_ is the number of slots in use after the code emitted so far. ---
  Operand leaf(Op op, std::uint32_t arg, double value, const Token& t) {
    code_.push_back({op, static_cast<std::uint32_t>(sp_), 0, 0, arg, value});
    ++sp_;
    slot_count_ = std::max(slot_count_, sp_);
    return {1, t.begin, t.end};
  }
  Operand unary(Op op, const Token& t, const Operand& x) {
    if (x.length != 1) {
      fail(t.begin, {quoted(name(t)), " needs a number; its operand is a vector of ", x.length});
    }
    const auto slot = static_cast<std::uint32_t>(sp_ - 1);
    code_.push_back({op, slot, slot, 0, 0, 0});
    return {1, t.begin, x.end};
  }
  void require_scalar(const Operand& x, const Token& op, std::string_view side) const {
    if (x.length == 1) return;
    fail(op.begin,
         {quoted(name(op)), " needs numbers on both sides; ", side, " is a vector of ", x.length});
  }

  // --- Tokens ---
  Token take() {
    const Token t = token_;
    token_ = lexer_.next();
    return t;
  }
  Token expect(std::string_view symbol) {
    if (!at(symbol)) {
      fail(token_.begin, {"expected ", quoted(symbol), " but found ", describe(token_)});
    }
    return take();
  }
  std::string_view name(const Token& t) const { return s_.substr(t.begin, t.end - t.begin); }
  // Whether the current token is the symbol or keyword `text`.
  bool at(std::string_view text) const {
    return token_.kind != Token::kEnd && name(token_) == text;
  }
  std::optional<Op> operator_at(OperatorTable operators) const {
    for (const auto& [text, op] : operators) {
      if (at(text)) return op;
    }
    return std::nullopt;
  }
  Part describe(const Token& t) const {
    return t.kind == Token::kEnd ? Part("end of input") : quoted(name(t));
  }
  Part text(const Operand& x) const { return quoted(s_.substr(x.begin, x.end - x.begin)); }

  std::string_view s_;
  const ClassTable& classes_;
  const std::string known_classes_;  // for messages
  Lexer lexer_;
  Token token_;
  std::size_t depth_ = 0;
  std::size_t sp_ = 0;
  std::size_t slot_count_ = 0;  // the most slots in use at once
  std::vector<Instruction> code_;
  std::vector<int> named_;
};

}  // namespace

bool is_valid_class_name(std::string_view name) {
  if (name.empty() || !is_letter(name[0]) || is_keyword(name)) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return is_letter(c) || is_digit(c); });
}

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

std::variant<Expected, ExpectedSyntaxError> parse_expected(std::string_view source,
                                                           const ClassTable& classes) {
  if (source.size() > limits::kMaxExpectedLength) {
    return ExpectedSyntaxError{limits::kMaxExpectedLength,
                               "the expression is " + std::to_string(source.size()) +
                                   " characters long; the limit is " +
                                   std::to_string(limits::kMaxExpectedLength)};
  }
  try {
    Parser parser(source, classes);
    return Expected(std::make_unique<Expected::Program>(parser.parse()));
  } catch (ParseFailure& failure) {
    return std::move(failure.error);
  }
}

}  // namespace headgrader

// The `expected` language's compiler: a recursive-descent parser (one function per grammar
// rule of API.md §3) over the tokens of expected_lexer.h that checks names, operand kinds and
// vector lengths and emits the flat program of expected_program.h as it goes. Its first
// error is thrown as expected_syntax_error.h's ParseFailure and returned as a value.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "expected_lexer.h"
#include "expected_program.h"
#include "expected_syntax_error.h"
#include "headgrader/expected.h"
#include "headgrader/limits.h"

namespace headgrader {

namespace expected_syntax {
namespace {

using expected_program::Instruction;
using expected_program::Op;

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
}  // namespace expected_syntax

std::variant<Expected, ExpectedSyntaxError> parse_expected(std::string_view source,
                                                           const ClassTable& classes) {
  if (source.size() > limits::kMaxExpectedLength) {
    return ExpectedSyntaxError{limits::kMaxExpectedLength,
                               "the expression is " + std::to_string(source.size()) +
                                   " characters long; the limit is " +
                                   std::to_string(limits::kMaxExpectedLength)};
  }
  try {
    expected_syntax::Parser parser(source, classes);
    return Expected(std::make_unique<Expected::Program>(parser.parse()));
  } catch (expected_syntax::ParseFailure& failure) {
    return std::move(failure.error);
  }
}

}  // namespace headgrader

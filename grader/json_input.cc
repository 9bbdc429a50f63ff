#include "headgrader/json_input.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "headgrader/limits.h"
#include "message_text.h"

namespace headgrader {
namespace {

// "line 3, column 7" of the byte at `offset`.
std::string line_and_column(std::string_view text, std::size_t offset) {
  const TextPosition at = position_in(text, offset);
  return "line " + std::to_string(at.line) + ", column " + std::to_string(at.column);
}

// Walks the token stream once, checking depth, duplicate keys and keys per object before
// each event is placed in the tree: a tree too deep, too wide or with a key given twice is
// never built, and sound input is read only once. The tree is built here rather than by
// nlohmann's json_sax_dom_parser, whose object insertion is a linear scan (ordered_json):
// each event costs O(1) (a key, O(log n) for the duplicate check), so any body is read in
// time linear in its size.
class CheckedParse : public nlohmann::json_sax<Json> {
 public:
  CheckedParse(Json& root, std::string_view text, std::size_t max_depth, std::string_view subject)
      : root_(root), text_(text), max_depth_(max_depth), subject_(subject) {}

  bool null() override { return put(nullptr); }
  bool boolean(bool b) override { return put(b); }
  bool number_integer(number_integer_t n) override { return put(n); }
  bool number_unsigned(number_unsigned_t n) override { return put(n); }
  bool number_float(number_float_t x, const string_t&) override { return put(x); }
  bool string(string_t& text) override { return put(std::move(text)); }
  bool binary(binary_t& bytes) override { return put(std::move(bytes)); }
  bool start_object(std::size_t) override {
    if (!enter()) return false;
    keys_.emplace_back();
    put(Json::object());
    open_.push_back(value_);
    return true;
  }
  bool key(string_t& key) override {
    if (depth_ == 1) top_key_ = key;  // keys at depth 1 are the root object's
    std::set<std::string>& seen = keys_.back();
    if (seen.size() >= limits::kMaxJsonObjectKeys) {
      error_ = blame_top_key(ErrorCode::kOutOfRange,
                             subject_ + " holds an object with more than " +
                                 std::to_string(limits::kMaxJsonObjectKeys) +
                                 " keys; no object of the contract needs that many");
      return false;
    }
    if (seen.insert(key).second) {
      // The key is new in its object (just checked), so it is appended as is: the tree's
      // own insertion (ordered_json's operator[]) would scan every key before it, O(n²)
      // for an object of n keys (seconds for a 1 MiB body of short keys).
      auto& members =
          static_cast<Json::object_t::Container&>(open_.back()->get_ref<Json::object_t&>());
      members.emplace_back(key, nullptr);
      member_ = &members.back().second;
      return true;
    }
    const std::string shown = "\"" + shorten(key) + "\"";
    error_ = blame_top_key(
        ErrorCode::kDuplicateField,
        depth_ == 1 || !top_key_
            ? shown + " is given twice; give each key once"
            : shown + " is given twice inside \"" + shorten(*top_key_) + "\"; give each key once");
    return false;
  }
  bool end_object() override {
    keys_.pop_back();
    open_.pop_back();
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    if (!enter()) return false;
    put(Json::array());
    open_.push_back(value_);
    return true;
  }
  bool end_array() override {
    open_.pop_back();
    --depth_;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    if (ex.id == kNumberOverflow) {
      // Well-formed JSON, but a number beyond what a double holds (1e400): say so, and in
      // which top-level field, rather than "not valid JSON".
      error_ = blame_top_key(ErrorCode::kOutOfRange,
                             subject_ + " holds a number too large to represent, at byte " +
                                 std::to_string(position) +
                                 (top_key_ ? " in \"" + shorten(*top_key_) + "\"" : std::string()));
      return false;
    }
    error_ = Error{ErrorCode::kInvalidJson, describe_parse_error(position, ex.what()), ""};
    return false;
  }

  const std::optional<Error>& error() const { return error_; }

 private:
  // Places a value: the root, the next item of the open array, or the value of the key just
  // read in the open object. value_ points at it (stable until its container grows, which
  // is only after the value is complete).
  template <class Value>
  bool put(Value&& value) {
    if (open_.empty()) {
      root_ = Json(std::forward<Value>(value));
      value_ = &root_;
    } else if (open_.back()->is_array()) {
      auto& items = open_.back()->get_ref<Json::array_t&>();
      items.emplace_back(std::forward<Value>(value));
      value_ = &items.back();
    } else {
      *member_ = Json(std::forward<Value>(value));
      value_ = member_;
    }
    return true;
  }

  bool enter() {
    if (++depth_ > max_depth_) {
      error_ = blame_top_key(ErrorCode::kTooDeep, subject_ + " is nested more than " +
                                                      std::to_string(max_depth_) + " levels deep");
      return false;
    }
    return true;
  }

  // The error with field = the root object's key whose value is being read, if any: none
  // for the root container itself, nor anywhere inside a root that is not an object.
  Error blame_top_key(ErrorCode code, std::string message) const {
    if (!top_key_) return Error{code, std::move(message), ""};
    return key_error(code, std::move(message), *top_key_);
  }

  // Where the parser gave up (line and column, counted in bytes, 1-based) and why, in the
  // words of someone who wrote the JSON by hand or with Python's json module; nlohmann's own
  // reason only when no plainer one applies. The input itself is never quoted back.
  std::string describe_parse_error(std::size_t position, const std::string& message) const {
    const std::string what = without_input(message);
    // `position` counts the bytes read, the offending one last; input that stops short is
    // at fault where it stops.
    const bool stops_short = what.find("unexpected end of input") != std::string::npos ||
                             what.find("missing closing quote") != std::string::npos;
    const std::size_t read = std::min(position, text_.size());
    std::size_t start = stops_short ? text_.size() : read > 0 ? read - 1 : 0;
    // An unexpected string or number was read whole: point at its first byte.
    const bool inside = start < text_.size();
    if (inside && start > 0 && text_[start] == '"' &&
        what.find("unexpected string literal") != std::string::npos) {
      std::size_t open = text_.rfind('"', start - 1);
      while (open != std::string_view::npos && open > 0 && text_[open - 1] == '\\') {
        open = open > 1 ? text_.rfind('"', open - 2) : std::string_view::npos;
      }
      if (open != std::string_view::npos) start = open;
    } else if (inside && start > 0 &&
               (what.find("after backslash") != std::string::npos ||
                what.find("'\\u' must be followed") != std::string::npos)) {
      // A bad escape: point at its backslash, not at the byte that gave it away (which may
      // be a backslash too, as in "\u12\n").
      if (const std::size_t backslash = text_.rfind('\\', start - 1);
          backslash != std::string_view::npos) {
        start = backslash;
      }
    } else if (inside && what.find("unexpected number literal") != std::string::npos) {
      const auto in_number = [&](std::size_t i) {
        return std::string_view("0123456789.eE+-").find(text_[i]) != std::string_view::npos;
      };
      // "07" is read as 0, then an unexpected 7.
      const bool leading_zero = start > 0 && text_[start - 1] == '0' && text_[start] >= '0' &&
                                text_[start] <= '9' && (start < 2 || !in_number(start - 2));
      if (leading_zero) {
        return subject_ + " is not valid JSON at " + line_and_column(text_, start - 1) +
               ": JSON numbers have no leading zeros (write 7, not 07)";
      }
      while (start > 0 && in_number(start - 1)) --start;
    }
    return subject_ + " is not valid JSON at " + line_and_column(text_, start) + ": " +
           plain_reason(start, what);
  }

  // nlohmann's message without the input it quotes ("; last read: '…'"), which a sender's
  // own text could otherwise make match any of the reasons looked for.
  static std::string without_input(const std::string& message) {
    const std::size_t quoted = message.find("; last read: '");
    if (quoted == std::string::npos) return message;
    std::string what = message.substr(0, quoted);
    // "; expected X" follows the quote when the parser knew what it wanted next.
    if (const std::size_t expected = message.rfind("; expected ");
        expected != std::string::npos && expected > quoted) {
      what += message.substr(expected);
    }
    return what;
  }

  std::string plain_reason(std::size_t start, const std::string& what) const {
    const std::string_view rest = text_.substr(start);
    const auto starts = [&](std::string_view word) { return rest.starts_with(word); };
    if (starts("NaN") || starts("nan") || starts("Infinity") || starts("-Infinity") ||
        starts("inf") || starts("-inf")) {
      return "JSON has no NaN or Infinity; every number must be finite, written like 0.5 or -2";
    }
    if (starts("True") || starts("False") || starts("None")) {
      return "JSON writes true, false and null in lowercase (True, False and None are Python)";
    }
    if (starts("'")) return "JSON strings and keys take double quotes (\"), not single quotes";
    if (starts("/")) return "JSON has no comments";
    if (what.find("ill-formed UTF-8") != std::string::npos) {
      return "a string holds bytes that are not UTF-8 text";
    }
    if (what.find("invalid string: control character") != std::string::npos) {
      return "a string holds a line break, a tab or another control character; inside quotes "
             "write it as \\n, \\t or \\u00XX";
    }
    if (what.find("after backslash") != std::string::npos && start + 1 >= text_.size()) {
      return "it ends before every bracket, brace and quote is closed";  // on a backslash
    }
    if (what.find("after backslash") != std::string::npos) {
      return "a backslash in a string starts an escape such as \\n or \\\"; write \\\\ for a "
             "backslash itself";
    }
    if (what.find("'\\u' must be followed") != std::string::npos) {
      return "\\u must be followed by four hexadecimal digits, as in \\u00e9";
    }
    if (what.find("unexpected end of input") != std::string::npos ||
        what.find("missing closing quote") != std::string::npos) {
      if (text_.find_first_not_of(" \t\r\n") == std::string_view::npos) return "it is empty";
      return "it ends before every bracket, brace and quote is closed";
    }
    if (what.find("expected end of input") != std::string::npos) {
      return "more follows the end of the JSON value";
    }
    if (what.find("expected ':'") != std::string::npos) return "a key must be followed by ':'";
    const std::size_t before = text_.substr(0, start).find_last_not_of(" \t\r\n");
    const bool after_comma = before != std::string_view::npos && text_[before] == ',';
    if (after_comma && (starts("]") || starts("}"))) {
      return std::string("a comma comes before this '") + rest.front() +
             "': JSON has no comma after the last item";
    }
    const bool item_expected_end = what.find("expected ']'") != std::string::npos ||
                                   what.find("expected '}'") != std::string::npos;
    if (item_expected_end &&
        (what.find("literal") != std::string::npos || starts("[") || starts("{"))) {
      return "a comma is missing before this item";
    }
    if (what.find("invalid literal") != std::string::npos) {
      return "this is not a JSON value (a number, a \"string\", true, false, null, [ or {)";
    }
    // "syntax error while parsing object separator - unexpected '['; expected ':'" →
    // "unexpected '['; expected ':'".
    std::string reason = what;
    if (const auto dash = reason.find(" - "); dash != std::string::npos) {
      reason = reason.substr(dash + 3);
    }
    return reason;
  }

  // Keys are echoed in messages (they name the field); a hostile one is cut short.
  static std::string shorten(const std::string& key) { return shorten_for_message(key); }

  static constexpr int kNumberOverflow = 406;  // nlohmann's out_of_range.406

  Json& root_;
  std::vector<Json*> open_;  // the arrays and objects being read, innermost last
  Json* member_ = nullptr;   // the value of the key last read
  Json* value_ = nullptr;    // the value last placed
  std::string_view text_;    // what is parsed
  std::size_t max_depth_;
  std::string subject_;
  // The root object's key last read (as decoded from the text); unset until the root is an
  // object with a key. A value under it is at depth 1 (scalar) or deeper (container).
  std::optional<std::string> top_key_;
  std::size_t depth_ = 0;
  std::vector<std::set<std::string>> keys_;
  std::optional<Error> error_;
};

}  // namespace

Result<Json> parse_json_checked(std::string_view text, std::size_t max_depth,
                                std::string_view subject) {
  // nlohmann's lexer takes a NUL byte for the end of the input, so `{…}\0junk` would parse
  // as `{…}`. JSON has no NUL outside strings, and inside them it must be escaped.
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    return Error{ErrorCode::kInvalidJson,
                 std::string(subject) + " is not valid JSON at " + line_and_column(text, nul) +
                     ": it holds a NUL byte",
                 ""};
  }
  Json root;
  CheckedParse parse(root, text, max_depth, subject);
  const bool ok = Json::sax_parse(text, &parse, nlohmann::detail::input_format_t::json,
                                  /*strict=*/true, /*ignore_comments=*/false);
  if (!ok || parse.error()) {
    if (parse.error()) return *parse.error();
    return Error{ErrorCode::kInvalidJson, std::string(subject) + " is not valid JSON", ""};
  }
  return root;
}

}  // namespace headgrader

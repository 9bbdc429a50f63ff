#include "json_input.h"

#include "matrix_json.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace headgrader {
namespace {

// Walks the token stream once, checking depth and duplicate keys before each event reaches
// the tree builder (nlohmann's own, the one Json::parse uses): a tree too deep or with a
// key given twice is never built, and sound input is read only once.
class CheckedParse : public nlohmann::json_sax<Json> {
 public:
  CheckedParse(Json& root, std::size_t max_depth, std::string_view subject)
      : dom_(root, /*allow_exceptions=*/false), max_depth_(max_depth), subject_(subject) {}

  bool null() override { return dom_.null(); }
  bool boolean(bool b) override { return dom_.boolean(b); }
  bool number_integer(number_integer_t n) override { return dom_.number_integer(n); }
  bool number_unsigned(number_unsigned_t n) override { return dom_.number_unsigned(n); }
  bool number_float(number_float_t x, const string_t& text) override {
    return dom_.number_float(x, text);
  }
  bool string(string_t& text) override { return dom_.string(text); }
  bool binary(binary_t& bytes) override { return dom_.binary(bytes); }
  bool start_object(std::size_t size) override {
    keys_.emplace_back();
    return enter() && dom_.start_object(size);
  }
  bool key(string_t& key) override {
    if (depth_ == 1) top_key_ = key;  // keys at depth 1 are the root object's
    if (keys_.back().insert(key).second) return dom_.key(key);
    const std::string shown = "\"" + shorten(key) + "\"";
    error_ = blame_top_key(
        error_code::kDuplicateField,
        depth_ == 1 || !top_key_
            ? shown + " is given twice; give each key once"
            : shown + " is given twice inside \"" + shorten(*top_key_) + "\"; give each key once");
    return false;
  }
  bool end_object() override {
    keys_.pop_back();
    --depth_;
    return dom_.end_object();
  }
  bool start_array(std::size_t size) override { return enter() && dom_.start_array(size); }
  bool end_array() override {
    --depth_;
    return dom_.end_array();
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    if (ex.id == kNumberOverflow) {
      // Well-formed JSON, but a number beyond what a double holds (1e400): say so, and in
      // which top-level field, rather than "not valid JSON".
      error_ = blame_top_key(error_code::kOutOfRange,
                             subject_ + " holds a number too large to represent, at byte " +
                                 std::to_string(position) +
                                 (top_key_ ? " in \"" + shorten(*top_key_) + "\"" : std::string()));
      return false;
    }
    error_ = Error{error_code::kInvalidJson, describe_parse_error(position, ex.what()), ""};
    return false;
  }

  const std::optional<Error>& error() const { return error_; }

 private:
  bool enter() {
    if (++depth_ > max_depth_) {
      error_ = blame_top_key(error_code::kTooDeep, subject_ + " is nested more than " +
                                                       std::to_string(max_depth_) + " levels deep");
      return false;
    }
    return true;
  }

  // The error with field = the root object's key whose value is being read, if any: none
  // for the root container itself, nor anywhere inside a root that is not an object.
  Error blame_top_key(const char* code, std::string message) const {
    if (!top_key_) return Error{code, std::move(message), ""};
    return key_error(code, std::move(message), *top_key_);
  }

  // nlohmann's text ends with "; last read: '<input>'": keep the reason, drop the echo.
  std::string describe_parse_error(std::size_t position, std::string what) {
    std::string reason = "it is not valid JSON";
    if (auto at = what.find("syntax error while parsing "); at != std::string::npos) {
      reason = what.substr(at);
      if (auto last = reason.find("; last read"); last != std::string::npos) {
        const auto rest = reason.find("; expected", last);
        reason = reason.substr(0, last) +
                 (rest == std::string::npos ? std::string() : reason.substr(rest));
      }
    } else if (what.find("ill-formed UTF-8") != std::string::npos) {
      reason = "ill-formed UTF-8";
    }
    return subject_ + " is not valid JSON (" + reason + ", at byte " + std::to_string(position) +
           ")";
  }

  // Keys are echoed in messages (they name the field); a hostile one is cut short.
  static std::string shorten(const std::string& key) { return shorten_for_message(key); }

  static constexpr int kNumberOverflow = 406;  // nlohmann's out_of_range.406

  nlohmann::detail::json_sax_dom_parser<Json> dom_;
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
    return Error{error_code::kInvalidJson,
                 std::string(subject) + " is not valid JSON (it holds a NUL byte, at byte " +
                     std::to_string(nul + 1) + ")",
                 ""};
  }
  Json root;
  CheckedParse parse(root, max_depth, subject);
  const bool ok = Json::sax_parse(text, &parse, nlohmann::detail::input_format_t::json,
                                  /*strict=*/true, /*ignore_comments=*/false);
  if (!ok || parse.error()) {
    if (parse.error()) return *parse.error();
    return Error{error_code::kInvalidJson, std::string(subject) + " is not valid JSON", ""};
  }
  return root;
}

}  // namespace headgrader

#include "typed_decimals.h"

#include <charconv>
#include <optional>

#include "headgrader/report.h"

namespace headgrader {
namespace {

// Follows the path root → "steps" → step → row → column and records each number's decimals.
// Depth 1 is the root object, 2 the steps object, 3 a step's matrix, 4 one of its rows.
class DecimalsReader : public nlohmann::json_sax<Json> {
 public:
  explicit DecimalsReader(TypedDecimals& out) : out_(out) {}

  bool null() override { return entry(0); }
  bool boolean(bool) override { return entry(0); }
  bool number_integer(number_integer_t) override { return entry(0); }
  bool number_unsigned(number_unsigned_t) override { return entry(0); }
  bool number_float(number_float_t, const string_t& text) override {
    return entry(literal_decimals(text));
  }
  bool string(string_t&) override { return entry(0); }
  bool binary(binary_t&) override { return entry(0); }
  bool start_object(std::size_t) override {
    entry_started();
    ++depth_;
    return true;
  }
  bool key(string_t& key) override {
    if (depth_ == 1) {
      in_steps_ = key == "steps";
      step_.clear();
    }
    if (depth_ == 2 && in_steps_) step_ = key;
    return true;
  }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    entry_started();
    ++depth_;
    if (depth_ == 3 && in_steps_ && !step_.empty()) out_[step_].clear();
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool in_matrix() const { return in_steps_ && !step_.empty() && out_.count(step_) > 0; }

  // A value starts: inside a step's matrix at depth 3 it is a new row, at depth 4 an entry.
  void entry_started() {
    if (depth_ == 3 && in_matrix()) out_[step_].emplace_back();
  }
  bool entry(int decimals) {
    entry_started();
    if (depth_ == 4 && in_matrix() && !out_[step_].empty()) out_[step_].back().push_back(decimals);
    return true;
  }

  TypedDecimals& out_;
  int depth_ = 0;
  bool in_steps_ = false;
  std::string step_;
};

}  // namespace

int literal_decimals(std::string_view literal) {
  const std::size_t e = literal.find_first_of("eE");
  const std::string_view mantissa = literal.substr(0, e);
  const std::size_t point = mantissa.find('.');
  int decimals =
      point == std::string_view::npos ? 0 : static_cast<int>(mantissa.size() - point - 1);
  if (e != std::string_view::npos) {
    std::string_view exponent = literal.substr(e + 1);
    if (!exponent.empty() && exponent.front() == '+') exponent.remove_prefix(1);
    int value = 0;
    const auto [end, error] =
        std::from_chars(exponent.data(), exponent.data() + exponent.size(), value);
    // An exponent too large for an int made the number overflow or vanish: no decimals to count.
    if (error != std::errc() || end != exponent.data() + exponent.size()) return 0;
    decimals -= value;
  }
  return decimals;
}

TypedDecimals read_typed_decimals(std::string_view body) {
  TypedDecimals out;
  DecimalsReader reader(out);
  Json::sax_parse(body, &reader, nlohmann::detail::input_format_t::json, /*strict=*/true);
  return out;
}

}  // namespace headgrader

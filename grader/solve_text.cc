// text_with_reference (headgrader/solve.h): the found head spliced into the problem file's
// own text, so that `solve --write` changes the reference and not one byte besides: the
// file's layout, key order, number spellings and comments-in-strings stay the author's.
#include <cctype>

#include "headgrader/report.h"
#include "headgrader/solve.h"

namespace headgrader {
namespace {

// A small scanner over JSON text that knows where values begin and end; the text was already
// read as JSON by the loader, so it only needs to be right on valid input, and says nothing
// (npos) on anything else.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  std::size_t skip_space(std::size_t at) const {
    while (at < text_.size() && std::isspace(static_cast<unsigned char>(text_[at]))) ++at;
    return at;
  }
  // The end of the string that starts at `at` (one past its closing quote).
  std::size_t string_end(std::size_t at) const {
    for (std::size_t k = at + 1; k < text_.size(); ++k) {
      if (text_[k] == '\\') {
        ++k;
      } else if (text_[k] == '"') {
        return k + 1;
      }
    }
    return std::string_view::npos;
  }
  // The end of the value that starts at `at`.
  std::size_t value_end(std::size_t at) const {
    if (at >= text_.size()) return std::string_view::npos;
    if (text_[at] == '"') return string_end(at);
    if (text_[at] == '{' || text_[at] == '[') {
      int depth = 0;
      for (std::size_t k = at; k < text_.size(); ++k) {
        if (text_[k] == '"') {
          k = string_end(k);
          if (k == std::string_view::npos) return k;
          --k;
        } else if (text_[k] == '{' || text_[k] == '[') {
          ++depth;
        } else if ((text_[k] == '}' || text_[k] == ']') && --depth == 0) {
          return k + 1;
        }
      }
      return std::string_view::npos;
    }
    std::size_t k = at;
    while (k < text_.size() && text_[k] != ',' && text_[k] != '}' && text_[k] != ']' &&
           !std::isspace(static_cast<unsigned char>(text_[k]))) {
      ++k;
    }
    return k;
  }

 private:
  std::string_view text_;
};

// The reference as the bundled problems write it: two-space indents, a row a line.
std::string reference_text(const Problem& problem, const HeadWeights& head) {
  std::string out = "{";
  bool first_matrix = true;
  for (const std::string& name : problem.submit) {
    out += first_matrix ? "\n" : ",\n";
    first_matrix = false;
    out += "    \"" + name + "\": [";
    const Matrix& m = head.by_name(name);
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
      out += r == 0 ? "\n      [" : ",\n      [";
      for (Eigen::Index c = 0; c < m.cols(); ++c) {
        if (c > 0) out += ", ";
        out += number_to_json(m(r, c)).dump();
      }
      out += "]";
    }
    out += "\n    ]";
  }
  return out + "\n  }";
}

}  // namespace

std::optional<std::string> text_with_reference(std::string_view text, const Problem& problem,
                                               const HeadWeights& head) {
  const Scanner scan(text);
  std::size_t at = scan.skip_space(0);
  if (at >= text.size() || text[at] != '{') return std::nullopt;
  at = scan.skip_space(at + 1);
  std::size_t last_value_end = std::string_view::npos;
  while (at < text.size() && text[at] != '}') {
    if (text[at] != '"') return std::nullopt;
    const std::size_t key_end = scan.string_end(at);
    if (key_end == std::string_view::npos) return std::nullopt;
    const std::string_view key = text.substr(at + 1, key_end - at - 2);
    std::size_t colon = scan.skip_space(key_end);
    if (colon >= text.size() || text[colon] != ':') return std::nullopt;
    const std::size_t value = scan.skip_space(colon + 1);
    const std::size_t end = scan.value_end(value);
    if (end == std::string_view::npos) return std::nullopt;
    if (key == "reference") {
      return std::string(text.substr(0, value)) + reference_text(problem, head) +
             std::string(text.substr(end));
    }
    last_value_end = end;
    at = scan.skip_space(end);
    if (at < text.size() && text[at] == ',') at = scan.skip_space(at + 1);
  }
  if (at >= text.size() || last_value_end == std::string_view::npos) return std::nullopt;
  return std::string(text.substr(0, last_value_end)) +
         ",\n  \"reference\": " + reference_text(problem, head) +
         std::string(text.substr(last_value_end));
}

}  // namespace headgrader

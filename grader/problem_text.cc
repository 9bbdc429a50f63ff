#include "headgrader/problem_text.h"

#include <algorithm>
#include <sstream>

#include "matrix_text.h"

namespace headgrader {

std::string problem_text(const Problem& problem) {
  std::ostringstream out;
  out << problem.title << "\n";
  if (!problem.shown_statement().empty()) out << problem.shown_statement() << "\n";
  out << "expected: " << problem.expected_source << "\n";
  std::vector<std::string> features;
  for (std::size_t i = 0; i < problem.n_e; ++i) {
    features.push_back(i < problem.feature_names.size() ? problem.feature_names[i]
                                                        : std::to_string(i + 1));
  }
  // print_matrix pads a label to 3 characters only: the names, of any length, pad to the longest
  // so that the columns stay aligned.
  std::size_t longest = 0;
  for (const std::string& name : features) longest = std::max(longest, name.size());
  for (std::string& name : features) name.resize(longest, ' ');
  std::vector<std::string> tokens;
  for (std::size_t t = 0; t < problem.alphabet_chars.size(); ++t) {
    tokens.push_back(problem.spell({static_cast<int>(t)}));
  }
  print_matrix(out, "W_E (rows: features; columns: tokens)", problem.head.W_E, features, tokens);
  if (problem.head.W_P) {
    print_matrix(out, "W_P (rows: features; columns: positions)", *problem.head.W_P, features, {});
  }
  return out.str();
}

}  // namespace headgrader

#include "headgrader/problem_warnings.h"

#include <algorithm>
#include <regex>

#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "headgrader/strings.h"
#include "message_text.h"

namespace headgrader {

std::vector<ProblemWarning> problem_warnings(const Problem& problem) {
  std::vector<ProblemWarning> warnings;
  const auto blank = [](const std::string& text) {
    return text.find_first_not_of(" \t\r\n") == std::string::npos;
  };
  if (blank(problem.title)) {
    warnings.push_back(
        {"title", "is empty or blank: students see the problem listed without a name"});
  }
  if (blank(problem.statement)) {
    warnings.push_back({"statement", "is empty or blank: students are not told what to build"});
  }
  for (std::size_t c = 0; c < problem.classes.names.size(); ++c) {
    std::vector<char32_t> letters;
    // Always decodes: the file's JSON was valid UTF-8. Only the first letter listed twice is
    // named, which is enough to send the instructor to the class.
    if (!decode_utf8(problem.class_texts[c], letters)) continue;
    std::vector<char32_t> seen;
    for (const char32_t letter : letters) {
      if (std::find(seen.begin(), seen.end(), letter) == seen.end()) {
        seen.push_back(letter);
      } else {
        warnings.push_back({"classes." + problem.classes.names[c],
                            "lists \"" + encode_utf8(letter) +
                                "\" more than once; once is enough (a typo for another letter?)"});
        break;
      }
    }
  }
  if (problem.variants.permute_features || problem.variants.permute_outputs) {
    // The words a statement names a row or a component by its place with (the header's rule).
    static const std::regex kRowOrder(
        R"(\b(rows?|columns?|features?|dimensions?|components?|entry|entries)\s+\d)"
        R"(|\b(\d+(st|nd|rd|th)|first|second|third|fourth|last|top|bottom)\s+)"
        R"((rows?|columns?|features?|dimensions?|components?|entry|entries)\b)",
        std::regex::icase);
    // The statement, and each named mistake's message and hint, which are shown to students
    // as written whatever their variant.
    std::vector<std::pair<std::string, const std::string*>> texts = {
        {"statement", &problem.statement}};
    for (std::size_t i = 0; i < problem.mistakes.size(); ++i) {
      const std::string at = "mistakes[" + std::to_string(i) + "].";
      texts.emplace_back(at + "message", &problem.mistakes[i].message);
      texts.emplace_back(at + "hint", &problem.mistakes[i].hint);
    }
    for (const auto& [field, text] : texts) {
      std::smatch found;
      if (!std::regex_search(*text, found, kRowOrder)) continue;
      warnings.push_back(
          {field, "speaks of \"" + found.str() +
                      "\" while `variants` reorders the rows or outputs, so a student's row or "
                      "component there is not the one meant; write {feature:NAME} or "
                      "{output:N}, which each student reads as the number of their own row or "
                      "component, name it (feature_names are shown beside W_E) or turn off the "
                      "reordering"});
    }
  }
  // The reference's shapes (n_q included), with every submitted matrix set to 0.
  HeadWeights zeros = problem.reference;
  for (const std::string& name : problem.submit) zeros.by_name(name).setZero();
  if (grade(problem, zeros, 0).passed) {
    std::vector<std::string> given;
    for (const auto& [name, m] : problem.given) given.push_back(name);
    const std::string what = list_names(problem.submit) + " all 0" +
                             (given.empty() ? "" : ", " + list_names(given) + " as given");
    warnings.push_back(
        {"tolerance", "a submission of zeros (" + what + ") passes all " +
                          std::to_string(problem.tested_total()) +
                          " tested strings: with a tolerance of " +
                          number_to_json(problem.tolerance).dump() +
                          " the grade cannot tell a solution from none; make the tolerance "
                          "smaller or `expected` farther from what such a head outputs"});
  }
  return warnings;
}

}  // namespace headgrader

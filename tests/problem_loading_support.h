// Shared by the tests of problem files (tests/engine/problem_*_test.cc, API.md §2): one
// small valid problem, and the defects a loader finds in it, as their to_string() texts.
// Every case starts from the small problem and breaks one thing, so the defect list is
// exactly that thing.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "headgrader/problem.h"
#include "headgrader/report.h"

namespace headgrader::testing {

// "Has a consonant occurred?" over the alphabet "ab" (a a vowel, b a consonant), strings up
// to length 3. The reference is the handout's solution; it passes.
inline Json tiny_problem() {
  return Json::parse(R"({
    "id": "tiny",
    "title": "Has a consonant occurred?",
    "statement": "Output [0, 1] once a consonant has occurred, else [1, 0].",
    "alphabet": "ab",
    "classes": {"vowel": "a", "consonant": "b"},
    "W_E": [[1, 0], [0, 1]],
    "submit": ["W_q", "W_k", "W_V"],
    "expected": "any(consonant) ? [0, 1] : [1, 0]",
    "tolerance": 0.1,
    "strings": {"max_length": 3},
    "reference": {"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]}
  })");
}

// The defects of loading `text` as `file`, as their to_string() texts; {"loaded"} when the
// problem loads.
inline std::vector<std::string> defects_of_text(const std::string& text,
                                                const std::string& file = "tiny.json") {
  auto loaded = load_problem_text(text, file);
  if (std::holds_alternative<Problem>(loaded)) return {"loaded"};
  std::vector<std::string> out;
  for (const auto& d : std::get<std::vector<Defect>>(loaded)) out.push_back(d.to_string());
  return out;
}

inline std::vector<std::string> defects_of(const Json& problem,
                                           const std::string& file = "tiny.json") {
  return defects_of_text(problem.dump(), file);
}

}  // namespace headgrader::testing

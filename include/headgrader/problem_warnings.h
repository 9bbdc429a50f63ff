// What a problem that loads can still get wrong, such as tests that do not tell a solution
// from no solution at all. Not defects (the problem is consistent, and the server serves
// it), but worth an instructor's look before students see it; `headgrader validate` prints
// them.
#pragma once

#include <string>
#include <vector>

#include "headgrader/problem.h"

namespace headgrader {

struct ProblemWarning {
  std::string field;  // where to look, as in Defect
  std::string message;
};

// In this order: an empty or blank title or statement (students would see nothing there);
// a class that lists a letter twice (harmless, but likely a typo for another letter); a
// statement that speaks of the order of rows while `variants` reorders them (permute_features
// or permute_outputs): a word row, column, feature, dimension, component or entry next to a
// number ("row 1", "column 2", "3rd feature") or after an ordinal ("the first feature", "last
// row"), in any case, since the student's row 1 is then not the author's (the placeholders
// {feature:NAME} and {output:N} are each student's own, grader/variant_text.h); and a
// submission of zeros (every submitted matrix all 0, the given ones as given) passing every
// tested string: then the tolerance is too loose, or `expected` too near what such a head
// outputs, for the grade to mean anything. Costs one grading of the problem.
std::vector<ProblemWarning> problem_warnings(const Problem& problem);

}  // namespace headgrader

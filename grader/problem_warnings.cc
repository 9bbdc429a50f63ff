#include "headgrader/problem_warnings.h"

#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "message_text.h"

namespace headgrader {

std::vector<ProblemWarning> problem_warnings(const Problem& problem) {
  std::vector<ProblemWarning> warnings;
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

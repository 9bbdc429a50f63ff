// The gradings one diagnosis makes (diagnosis.h): each named mistake's proof grades changed
// copies of the submission through Trials, which counts them against
// limits::kDiagnosisBudgetStrings, so that a diagnosis costs at most a few gradings' time
// whatever the problem.
#pragma once

#include <cstdint>
#include <string_view>

#include "headgrader/attention.h"
#include "headgrader/grade.h"
#include "headgrader/limits.h"
#include "headgrader/problem.h"

namespace headgrader {

// One diagnosis: the submission, what its proofs have graded, and the budget left.
class Trials {
 public:
  Trials(const Problem& p, const HeadWeights& w);

  const Problem& p;
  const HeadWeights& w;  // the submission, with the problem's given matrices
  const HeadWeights& ref() const { return p.reference; }

  bool submitted(std::string_view name) const {
    for (const auto& s : p.submit) {
      if (s == name) return true;
    }
    return false;
  }
  bool affords(int gradings) const {
    return spent_ + static_cast<std::uint64_t>(gradings) * cost_ <= limits::kDiagnosisBudgetStrings;
  }
  bool passes(const HeadWeights& changed) {
    ++gradings_;
    spent_ += cost_;
    return passes_every_tested_string(p, changed);
  }
  // Grades against another target of the same tested strings (Problem::mistake_targets()):
  // the same cost as a grading of the problem.
  bool passes_against(const Problem& target, const HeadWeights& changed) {
    ++gradings_;
    spent_ += cost_;
    return passes_every_tested_string(target, changed);
  }
  int gradings() const { return gradings_; }

 private:
  std::uint64_t cost_, spent_ = 0;
  int gradings_ = 0;
};

}  // namespace headgrader

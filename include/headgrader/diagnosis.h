// Named mistakes (API.md §13): for a failing head, a small library of changes to the
// student's own answer (scores sharper, W_q and W_k exchanged, W_V rows exchanged, …) is
// graded, and each change that passes names the mistake, with a message saying what was
// proven and a hint. Nothing is reported that a grading did not prove. For a passing head,
// its margin; for a problem, the same library applied to its reference (lint): a mistake
// that passes there means the tests cannot tell it from the solution. The reference's weights
// are used to prove some mistakes but never appear in a message.
// Thread-safety: pure functions of their arguments.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "headgrader/grade.h"
#include "headgrader/problem.h"
#include "headgrader/problem_warnings.h"

namespace headgrader {

// The grade answer's pipeline, used by the server, `headgrader grade` and the platform
// commands: grade(), then for a failing head its diagnosis (and the mistakes not tried), for
// a passing one its margin.
GradeReport grade_with_diagnosis(const Problem& problem, const HeadWeights& weights,
                                 int max_failures);

struct DiagnosisResult {
  std::vector<Diagnosis> found;        // in the library's order
  std::vector<std::string> not_tried;  // mistakes that applied but did not fit the budget
  int gradings = 0;                    // changed copies graded
};

// Precondition: `weights` fail the problem (as a grade said). Grades at most a few tens of
// changed copies within limits::kDiagnosisBudgetStrings; only the submitted matrices are
// changed.
DiagnosisResult diagnose(const Problem& problem, const HeadWeights& weights);

// The mistakes of the library by name, in its order (for documentation and tests).
std::vector<std::string> mistake_names();

// A passing head's margin, from its worst error (GradeReport::worst_error). score_gap: over
// every query a tested string can hold (each group at each position with W_P) and the keys
// it can see, the smallest difference between its highest score and its next-highest
// distinct score; none when every query sees one score only, or when there are more than
// limits::kMaxScoreGapTokens query tokens.
Margin margin_of(const Problem& problem, const HeadWeights& weights, double worst_error);

// Whether the tests catch one mistake of the library made on the reference (API.md §14).
// `by`: the shortest tested string that fails it, spelled in the alphabet; among strings of
// that length the first in alphabet order (a token's place in `alphabet`), as grading lists
// its failures. A mistake made more than one way (value_rows_swapped: each pair of distinct
// rows; value_wrong: each row set to 0) is caught when every way fails, and `by` is then
// that of the way caught last: the longest of their shortest failing strings, the later in
// alphabet order on a tie. Absent when not caught.
struct MistakeCaught {
  std::string mistake;
  bool caught = false;
  std::optional<std::string> by;
};

// Problem lint (`headgrader validate --lint`, the staff validate route): each mistake of the
// library applied to the reference must fail the problem's tests; a warning for each that
// passes (field "strings"), in the library's order, and a row of mistakes_caught for each
// that applies to the problem (caught or not). Mistakes about how sharply and where a head
// attends are skipped for a reference whose attention is uniform (every query sees one
// score), where they change nothing, as are mistakes whose matrices are not submitted.
// Costs a grading per way a mistake is made.
struct LintReport {
  std::vector<ProblemWarning> warnings;
  std::vector<MistakeCaught> mistakes_caught;
  Margin reference_margin;
};
LintReport lint_problem(const Problem& problem);

}  // namespace headgrader

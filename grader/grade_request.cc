#include "headgrader/grade_request.h"

#include "headgrader/diagnosis.h"
#include "headgrader/report.h"

namespace headgrader {

Graded grade_submission(const Problem& problem, const Submission& submission) {
  Graded graded;
  graded.report = grade_with_diagnosis(problem, submission.weights, submission.max_failures);
  graded.answer = report_json(problem, graded.report);
  return graded;
}

}  // namespace headgrader

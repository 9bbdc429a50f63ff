// The grade route's pipeline (API.md §5, §13), one for the server and for `headgrader grade`,
// so that "the CLI prints exactly the server's JSON" holds by construction: a parsed
// submission graded with its diagnosis and rendered. The server checks the record's rules
// (Idempotency-Key, attempt limits) between parse_submission() and grade_submission().
// Thread-safety: a pure function.
#pragma once

#include <string>

#include "headgrader/grade.h"
#include "headgrader/problem.h"
#include "headgrader/submission.h"

namespace headgrader {

struct Graded {
  GradeReport report;  // with its diagnosis or margin
  std::string answer;  // the 200 body: report_json(problem, report)
};

Graded grade_submission(const Problem& problem, const Submission& submission);

}  // namespace headgrader

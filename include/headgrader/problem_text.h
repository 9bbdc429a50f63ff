// A problem as the student sees it, for a person reading text: what a course platform's
// results show before the grade (API.md §12, §15), so that a student graded on their own
// variant can read which problem that is, even when their file could not be graded.
// Thread-safety: a pure function of the problem.
#pragma once

#include <string>

#include "headgrader/problem.h"

namespace headgrader {

// The problem's title, statement (shown_statement: a variant's placeholders filled in) and
// `expected` (a variant's in the student's order), then W_E (and W_P when given) with one row a
// feature, labelled by `feature_names` (else numbered), and one column a token (W_E, labelled
// by the alphabet's character) or a position (W_P, numbered from 1), as the grade's trace lays
// out matrices (report_text.cc). Never the reference.
std::string problem_text(const Problem& problem);

}  // namespace headgrader

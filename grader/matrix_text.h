// Numbers and matrices for a person at a terminal, to 4 decimals, as the handout lays them out:
// a grade's trace (report_text.cc) and a student's problem (problem_text.cc) alike.
// Thread-safety: pure functions.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "headgrader/attention.h"

namespace headgrader {

// A whole number without decimals, inf and nan by name, else 4 decimals (or 4 significant
// digits when very large or small).
std::string format_number(double x);

// `title` then the matrix, one labelled row a line, the columns right-aligned under their
// labels; `column_labels` empty means numbered columns (1, 2, …). Precondition: one row label
// per row (and, when given, one column label per column).
void print_matrix(std::ostringstream& out, const char* title, const Matrix& m,
                  const std::vector<std::string>& row_labels,
                  const std::vector<std::string>& column_labels);

}  // namespace headgrader

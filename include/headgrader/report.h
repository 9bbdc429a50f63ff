// The answers as the contract writes them: the grade JSON of API.md §5, a problem as served
// by GET /v1/problems/{id} (never its reference), and a text form of a grade for a person at
// a terminal (the failing string, expected and actual rows, the attention matrix laid out as
// in the handout). Numbers that are whole print as integers, others with the shortest
// round-trip form, so answers are byte-identical on every machine.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "common/json.h"
#include "common/result.h"
#include "headgrader/diagnosis.h"
#include "headgrader/grade.h"
#include "headgrader/problem.h"

namespace headgrader {

Json number_to_json(double x);         // whole → integer, else double; −∞ → null
Json matrix_to_json(const Matrix& m);  // array of rows

// The grade answer's JSON text, as dump() would print it, written without a tree. After
// `failures`: `diagnosis` (always), `diagnosis_not_tried` (when not empty), `margin` (when
// the report has one: grade_with_diagnosis of a passing head).
std::string report_json(const Problem& problem, const GradeReport& report);
// {"worst_error", "tolerance", "slack", "score_gap" (when there is one)}, as in a grade.
Json margin_to_json(const Margin& margin);
// [{"mistake", "caught", "by" (null when not caught)}…] of the validate route (API.md §14).
Json mistakes_caught_to_json(const std::vector<MistakeCaught>& rows);
// The same as a table for a person, a line a mistake under a heading, each indented 2:
// "  uniform_attention  yes     "ab"" or "  key_too_soft       no      -".
std::string mistakes_caught_text(const std::vector<MistakeCaught>& rows);
Json problem_to_json(const Problem& problem);       // every §2 field but `reference`
Json problem_summary_json(const Problem& problem);  // {"id", "title", "submit"}
// The contract's error body {"error": {"code", "message", "field"}}; "field" is null when no
// top-level key is at fault. Dump it with Json::error_handler_t::replace: a field as sent
// may hold any bytes.
Json error_to_json(const Error& error);
std::string report_to_text(const Problem& problem, const GradeReport& report);
// The diagnosis (each mistake with its message and hint, and those not tried) or the margin
// of a report, for a person; "" when it has neither. report_to_text prints it under the
// summary line; the platform commands put it in their output.
std::string feedback_text(const GradeReport& report);
// A margin in words: "worst error 0.0067 of the tolerance 0.1 (slack 0.0933), score gap 5".
std::string margin_text(const Margin& margin);
// One string's rows for a person, one line a position, as report_to_text prints them:
// "  position 2 (b): expected [0, 1], got [0.1192, 0.8808]   <- wrong" (the mark on the
// 1-based `failing_positions`).
std::string rows_text(const Problem& problem, const TokenString& input, const Matrix& expected,
                      const Matrix& output, const std::vector<int>& failing_positions);

}  // namespace headgrader

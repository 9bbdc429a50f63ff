// The answers as the contract writes them: the grade JSON of API.md §5, a problem as served
// by GET /v1/problems/{id} (never its reference), and a text form of a grade for a person at
// a terminal (the failing string, expected and actual rows, the attention matrix laid out as
// in the handout). Numbers that are whole print as integers, others with the shortest
// round-trip form, so answers are byte-identical on every machine.
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "headgrader/grade.h"
#include "headgrader/problem.h"
#include "headgrader/result.h"

namespace headgrader {

using Json = nlohmann::ordered_json;  // keeps the contract's key order

Json number_to_json(double x);            // whole → integer, else double; −∞ → null
Json matrix_to_json(const Matrix& m);     // array of rows

// The grade answer's JSON text, as dump() would print it, written without a tree.
std::string report_json(const Problem& problem, const GradeReport& report);
Json problem_to_json(const Problem& problem);          // every §2 field but `reference`
Json problem_summary_json(const Problem& problem);     // {"id", "title", "submit"}
// The contract's error body {"error": {"code", "message", "field"}}; "field" is null when no
// top-level key is at fault. Dump it with Json::error_handler_t::replace: a field as sent
// may hold any bytes.
Json error_to_json(const Error& error);
std::string report_to_text(const Problem& problem, const GradeReport& report);

}  // namespace headgrader

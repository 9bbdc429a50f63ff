// The words a student reads in their own coordinates (API.md §15): a variant reorders W_E's
// rows and `expected`'s components, so the texts that point at a row or a component are
// rewritten for each variant. Two kinds:
//
// - An author's statement, named mistakes' messages and hints may hold placeholders:
//   {feature:NAME} is the 1-based number of the row of W_E named NAME in `feature_names` (so
//   also the column of W_q, W_k and W_V that reads it), {output:N} the 1-based place of the
//   component N of `expected` as written. "Put the weight in column {feature:consonant} of
//   W_k" reads "column 2" for a student whose consonant row is the second. Any other text in
//   braces is left as written.
// - `expected`'s source, whose vector literals ([a, b]) are written in the student's order,
//   so that the expression a student is shown computes their outputs.
// Thread-safety: pure functions of their arguments.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "headgrader/problem.h"

namespace headgrader {

class DefectList;  // grader/problem_fields.h

// `text` with each placeholder filled for `spec`: {feature:NAME} from spec.feature_names (in
// the order this spec shows its rows), {output:N} from `outputs` (the variant's σ: output j
// shown is output outputs[j] as written; empty: as written). A placeholder that names no
// feature (or a problem without feature_names) or a component past `expected`'s length is a
// defect at `field`, saying which placeholders there are, and is left as written.
std::string fill_placeholders(std::string_view text, const std::string& field,
                              const ProblemSpec& spec, std::span<const std::size_t> outputs,
                              DefectList& defects);

// `source` (an `expected` of API.md §3 yielding `outputs.size()` components) with every
// vector literal of that many elements written in the order of `outputs`: element j becomes
// element outputs[j] as written, the spaces between them kept in place. Each vector a
// well-typed `expected` yields is such a literal (only `?:` passes vectors on, and `[…]`
// holds scalars), so the result computes output outputs[j] as component j; the caller
// parses it again and keeps it only when it does (its length checked). Empty `outputs` or a
// single one: `source` unchanged.
std::string reorder_expected_source(std::string_view source, std::span<const std::size_t> outputs);

}  // namespace headgrader

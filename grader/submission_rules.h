// The rules of a submission body (API.md §5), in one table for both readers of
// grader/submission_readers.h, so that what one accepts the other accepts too:
//
//   key                           may hold                                  rule
//   W_q, W_k, W_V (kMatrixNames,  a matrix, when the problem submits it     is_submitted,
//   or their alias W_Q, W_K, W_v) (a given one may not be sent)             matrix_rules.h
//   kMaxFailuresKey (optional)    a whole number 0…kMaxMaxFailures          parse_max_failures
//   kStudentKey (optional)        a string                                  (its JSON type)
//   anything else                 nothing
//
// A matrix is as matrix_rules.h says: 1 to kMaxMatrixRows rows of 1 to kMaxMatrixColumns
// numbers, all as long as row 1, each finite with |x| ≤ kMaxAbsEntry. Then the matrices must
// fit the problem and each other: check_shapes.
// Thread-safety: constants and pure functions.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "headgrader/attention.h"
#include "headgrader/problem.h"
#include "headgrader/report.h"
#include "headgrader/result.h"

namespace headgrader {

// A matrix's names: the canonical one (kWeightNames) and the alias it may be sent under.
struct MatrixNames {
  const char* canonical;
  const char* alias;
};
inline constexpr std::array<MatrixNames, 3> kMatrixNames = {{
    {"W_q", "W_Q"},
    {"W_k", "W_K"},
    {"W_V", "W_v"},
}};

// The keys a body may hold besides the matrices.
inline constexpr std::string_view kMaxFailuresKey = "max_failures";
inline constexpr std::string_view kStudentKey = "student";

// "W_q" for "W_q" or "W_Q", and so on; nullptr for any other key.
const char* canonical_weight_name(std::string_view key);

// Whether the problem asks the student for the matrix named `canonical` (else it is given).
bool is_submitted(const Problem& problem, std::string_view canonical);

// max_failures: a whole number from 0 to limits::kMaxMaxFailures (3.0 and 1e1 count).
Result<int> parse_max_failures(const Json& value);

// How the matrices must fit the problem: columns n_e, W_V rows n_v, W_q and W_k rows n_q.
// `sent_as[k]` is the name kWeightNames[k] was sent under (for the messages), empty when it
// was not sent.
std::optional<Error> check_shapes(const Problem& problem, const HeadWeights& weights,
                                  const std::array<std::string, 3>& sent_as);

}  // namespace headgrader

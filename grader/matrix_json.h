// Reading matrices (arrays of rows) from untrusted JSON, for submissions and problem files
// alike, with messages that name the matrix, the row and the column at fault.
#pragma once

#include <string>

#include "headgrader/attention.h"
#include "headgrader/limits.h"
#include "headgrader/report.h"
#include "headgrader/result.h"

namespace headgrader {

// "a string", "an array", "null", … for "…; it is a string".
std::string describe_json_type(const Json& value);

// A non-empty rectangular array of arrays of finite numbers with |x| ≤ kMaxAbsEntry and at
// most kMaxMatrixRows rows and `max_columns` columns. `name` is how the matrix is named in
// messages (as the sender spelled it); Error::field is set to it.
Result<Matrix> parse_matrix(const Json& value, const std::string& name,
                            std::size_t max_columns = limits::kMaxMatrixColumns);

}  // namespace headgrader

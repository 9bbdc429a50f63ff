// The rules a matrix read from JSON must follow, one function each, so that the two readers
// of a matrix apply the same ones: parse_matrix (matrix_json.h), which words each fault, and
// the submission event reader (submission_readers.h), which stops at the first. A matrix has
// 1 to kMaxMatrixRows rows, each of 1 to `max_columns` numbers and as long as row 1, and every
// entry is finite with |x| ≤ kMaxAbsEntry.
// Thread-safety: pure functions.
#pragma once

#include <cmath>
#include <cstddef>

#include "headgrader/limits.h"

namespace headgrader {

enum class MatrixFault { kNone, kNoRows, kTooManyRows, kEmptyRow, kTooManyColumns, kRaggedRow };

// A matrix of `rows` rows: kNoRows, kTooManyRows or kNone.
constexpr MatrixFault rows_fault(std::size_t rows) {
  if (rows == 0) return MatrixFault::kNoRows;
  if (rows > limits::kMaxMatrixRows) return MatrixFault::kTooManyRows;
  return MatrixFault::kNone;
}

// A row of `length` numbers in a matrix whose row 1 has `columns`: kEmptyRow, kTooManyColumns
// or kRaggedRow, in that order, or kNone.
constexpr MatrixFault row_fault(std::size_t length, std::size_t columns, std::size_t max_columns) {
  if (length == 0) return MatrixFault::kEmptyRow;
  if (length > max_columns) return MatrixFault::kTooManyColumns;
  if (length != columns) return MatrixFault::kRaggedRow;
  return MatrixFault::kNone;
}

// An entry: finite, and at most kMaxAbsEntry in absolute value.
inline bool entry_allowed(double x) {
  return std::isfinite(x) && std::fabs(x) <= limits::kMaxAbsEntry;
}

}  // namespace headgrader

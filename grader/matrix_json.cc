#include "matrix_json.h"

#include <cmath>

#include "headgrader/limit_text.h"
#include "headgrader/limits.h"
#include "matrix_rules.h"
#include "message_text.h"

namespace headgrader {

std::string describe_json_type(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return value.get<bool>() ? "true" : "false";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::binary:
      return "binary data";
    case Json::value_t::discarded:
      return "nothing";
    default:
      return "a number";
  }
}

Result<Matrix> parse_matrix(const Json& value, const std::string& name, std::size_t max_columns) {
  const auto fail = [&](ErrorCode code, std::string message) {
    return Error{code, std::move(message), name};
  };
  constexpr const char* kShape = "an array of rows, each an array of numbers, e.g. [[1, 0]]";
  if (!value.is_array()) {
    return fail(ErrorCode::kWrongType,
                name + " must be a matrix: " + kShape + "; it is " + describe_json_type(value));
  }
  if (const MatrixFault fault = rows_fault(value.size()); fault == MatrixFault::kNoRows) {
    return fail(ErrorCode::kWrongShape, name + " must have at least one row; it is empty");
  } else if (fault == MatrixFault::kTooManyRows) {
    return fail(ErrorCode::kOutOfRange,
                name + " has " + std::to_string(value.size()) + " rows; at most " +
                    std::to_string(limits::kMaxMatrixRows) + " are allowed");
  }
  const auto& first = value.front();
  const std::size_t columns = first.is_array() ? first.size() : 0;
  Matrix m(static_cast<Eigen::Index>(value.size()), static_cast<Eigen::Index>(columns));
  for (std::size_t r = 0; r < value.size(); ++r) {
    const auto& row = value[r];
    // Messages are built only on a fault: this runs for every row of every submission.
    const auto where = [&] { return "row " + std::to_string(r + 1) + " of " + name; };
    if (!row.is_array()) {
      return fail(ErrorCode::kWrongType, where() + " must be an array of numbers; it is " +
                                             describe_json_type(row) + " (" + name + " must be " +
                                             kShape + ")");
    }
    const MatrixFault fault = row_fault(row.size(), columns, max_columns);
    if (fault == MatrixFault::kEmptyRow) {
      return fail(ErrorCode::kWrongShape,
                  where() + " is empty; every row needs a number per column");
    }
    if (fault == MatrixFault::kTooManyColumns) {
      return fail(ErrorCode::kOutOfRange, where() + " has " + std::to_string(row.size()) +
                                              " numbers; at most " + std::to_string(max_columns) +
                                              " columns are allowed");
    }
    if (fault == MatrixFault::kRaggedRow) {
      return fail(ErrorCode::kWrongShape, where() + " has " +
                                              count_of(row.size(), "number", "numbers") +
                                              " but row 1 has " + std::to_string(columns) +
                                              "; all rows must be the same length");
    }
    for (std::size_t c = 0; c < columns; ++c) {
      const auto& entry = row[c];
      const auto cell = [&] {
        return "row " + std::to_string(r + 1) + ", column " + std::to_string(c + 1) + " of " + name;
      };
      if (!entry.is_number()) {
        return fail(ErrorCode::kWrongType,
                    cell() + " must be a number; it is " + describe_json_type(entry));
      }
      const double x = entry.get<double>();
      if (!entry_allowed(x)) {
        return fail(ErrorCode::kOutOfRange,
                    cell() + " is " + (std::isfinite(x) ? entry.dump() : std::string("too large")) +
                        "; entries must be at most " + number_text(limits::kMaxAbsEntry) +
                        " in absolute value");
      }
      m(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = x;
    }
  }
  return m;
}

}  // namespace headgrader

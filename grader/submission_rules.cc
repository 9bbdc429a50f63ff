// The rules of a submission body (submission_rules.h) that are more than a constant.
#include "submission_rules.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "headgrader/limits.h"
#include "matrix_json.h"
#include "message_text.h"

namespace headgrader {

// check_shapes and the readers index by kWeightNames, the table names by kMatrixNames.
static_assert(std::string_view(kMatrixNames[0].canonical) == kWeightNames[0] &&
              std::string_view(kMatrixNames[1].canonical) == kWeightNames[1] &&
              std::string_view(kMatrixNames[2].canonical) == kWeightNames[2]);

const char* canonical_weight_name(std::string_view key) {
  for (const auto& names : kMatrixNames) {
    if (key == names.canonical || key == names.alias) return names.canonical;
  }
  return nullptr;
}

bool is_submitted(const Problem& problem, std::string_view canonical) {
  return std::find(problem.submit.begin(), problem.submit.end(), canonical) != problem.submit.end();
}

Result<int> parse_max_failures(const Json& value) {
  const std::string want = "max_failures must be a whole number from 0 to " +
                           std::to_string(limits::kMaxMaxFailures) + "; it is ";
  if (!value.is_number()) {
    return Error{ErrorCode::kWrongType, want + describe_json_type(value), "max_failures"};
  }
  const double x = value.get<double>();
  if (!(x >= 0 && x <= limits::kMaxMaxFailures && x == std::floor(x)) ||
      (value.is_number_integer() && !value.is_number_unsigned() && value.get<std::int64_t>() < 0)) {
    return Error{ErrorCode::kOutOfRange, want + value.dump(), "max_failures"};
  }
  return static_cast<int>(x);
}

std::optional<Error> check_shapes(const Problem& problem, const HeadWeights& w,
                                  const std::array<std::string, 3>& sent_as) {
  const auto n_e = static_cast<Eigen::Index>(problem.n_e);
  const auto n_v = static_cast<Eigen::Index>(problem.n_v);
  // Every name asked for here is one of kWeightNames.
  const auto shown = [&](const char* name) -> const std::string& {
    return sent_as[weight_index(name)];
  };
  const auto submitted = [&](const char* name) { return !shown(name).empty(); };
  const std::array<std::pair<const char*, const Matrix*>, 3> all = {
      {{"W_q", &w.W_q}, {"W_k", &w.W_k}, {"W_V", &w.W_V}}};
  for (const auto& [name, m] : all) {
    if (!submitted(name) || m->cols() == n_e) continue;
    return Error{ErrorCode::kWrongShape,
                 shown(name) + " must have " + count_of(problem.n_e, "column", "columns") +
                     " (one per embedding feature, n_e = " + std::to_string(n_e) + "); it has " +
                     std::to_string(m->cols()),
                 shown(name)};
  }
  if (submitted("W_V") && w.W_V.rows() != n_v) {
    return Error{ErrorCode::kWrongShape,
                 shown("W_V") + " must have " + count_of(problem.n_v, "row", "rows") +
                     " (one per component of the expected output, n_v = " + std::to_string(n_v) +
                     "); it has " + std::to_string(w.W_V.rows()),
                 shown("W_V")};
  }
  if (w.W_q.rows() != w.W_k.rows()) {
    // Blame the second of the pair the student sent (or the only one sent).
    const char* blamed = submitted("W_k") ? "W_k" : "W_q";
    const char* other = blamed == std::string("W_k") ? "W_q" : "W_k";
    const Matrix& b = blamed == std::string("W_k") ? w.W_k : w.W_q;
    const Matrix& o = blamed == std::string("W_k") ? w.W_q : w.W_k;
    const std::string other_shown =
        submitted(other) ? shown(other) : "the given " + std::string(other);
    return Error{ErrorCode::kWrongShape,
                 shown(blamed) + " must have " +
                     count_of(static_cast<std::size_t>(o.rows()), "row", "rows") + ", as many as " +
                     other_shown + " (queries and keys share the size n_q); it has " +
                     std::to_string(b.rows()),
                 shown(blamed)};
  }
  return std::nullopt;
}

}  // namespace headgrader

// The tests' own reading of a student's variant (API.md §15), written from its definition and
// not from the engine's code, so that a test of variants checks the engine against an
// independent transformation: the variant id's parts, and the reference in the student's
// coordinates entry by entry. Shared by tests/server/variant_e2e_test.cc and the platform
// commands' tests (tests/integrations_variant_support.h).
#pragma once

#include <cstddef>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "headgrader/report.h"

namespace headgrader::variant_testing {

// A variant id read by its definition: "f" π, "s" scale indices, "o" σ, 0-based, "."-joined.
struct VariantIds {
  std::vector<int> features, scales, outputs;
};
inline VariantIds read_variant_id(const std::string& id) {
  VariantIds r;
  std::stringstream parts(id);
  for (std::string part; std::getline(parts, part, '-');) {
    std::vector<int>& list = part[0] == 'f' ? r.features : part[0] == 's' ? r.scales : r.outputs;
    std::stringstream numbers(part.substr(1));
    for (std::string n; std::getline(numbers, n, '.');) list.push_back(std::stoi(n));
  }
  return r;
}

// The student's coordinates, entry by entry: their row i is the problem's row π(i) scaled by
// s_i (`scales`, the problem's feature_scales), so a head reads the same residual when column i
// of W_q and W_k is the problem's column π(i) divided by s_i, and W_V's row j is the problem's
// row σ(j), with the same columns.
inline Json reference_in_student_coordinates(const Json& reference, const VariantIds& r,
                                             std::span<const double> scales) {
  const auto columns = [&](const Json& m) {
    Json out = Json::array();
    for (const Json& row : m) {
      Json new_row = Json::array();
      for (std::size_t i = 0; i < r.features.size(); ++i) {
        new_row.push_back(row[r.features[i]].get<double>() / scales[r.scales[i]]);
      }
      out.push_back(new_row);
    }
    return out;
  };
  Json rows_reordered = Json::array();
  for (const int j : r.outputs) rows_reordered.push_back(reference["W_V"][j]);
  return Json{{"W_q", columns(reference["W_q"])},
              {"W_k", columns(reference["W_k"])},
              {"W_V", columns(rows_reordered)}};
}

}  // namespace headgrader::variant_testing

// A problem file's `variants` and `feature_names` (API.md §15): how each student's copy is
// relabeled (headgrader/variant.h) and the rows' names shown beside W_E. Each bad value is a
// defect naming its field, so an author fixes the file in one pass.
#include <array>
#include <cmath>

#include "headgrader/limit_text.h"
#include "headgrader/limits.h"
#include "matrix_json.h"
#include "message_text.h"
#include "problem_fields.h"

namespace headgrader {
namespace {

constexpr std::array<const char*, 3> kVariantFields = {"permute_features", "permute_outputs",
                                                       "feature_scales"};

void read_flag(const Json& variants, const char* key, bool& flag, DefectList& defects) {
  const auto found = variants.find(key);
  if (found == variants.end()) return;
  if (!found->is_boolean()) {
    defects.add(std::string("variants.") + key,
                "must be true or false; it is " + describe_json_type(*found));
    return;
  }
  flag = found->get<bool>();
}

void read_feature_scales(const Json& variants, ProblemSpec& p, DefectList& defects) {
  const auto found = variants.find("feature_scales");
  if (found == variants.end()) return;
  const std::string field = "variants.feature_scales";
  const std::string want = "must be a list of 1 to " + std::to_string(limits::kMaxFeatureScales) +
                           " numbers greater than 0 (each row of W_E is multiplied by one)";
  if (!found->is_array()) {
    defects.add(field, want + "; it is " + describe_json_type(*found));
    return;
  }
  if (found->empty() || found->size() > limits::kMaxFeatureScales) {
    defects.add(field, want + "; it has " + std::to_string(found->size()));
    return;
  }
  std::vector<double> scales;
  for (std::size_t k = 0; k < found->size(); ++k) {
    const Json& value = (*found)[k];
    const std::string at = field + "[" + std::to_string(k) + "]";
    // 0 would erase a feature (no head could read it), a negative flips it: neither is the
    // same problem relabeled.
    if (!value.is_number()) {
      defects.add(at, "must be a number greater than 0; it is " + describe_json_type(value));
    } else if (const double x = value.get<double>();
               !std::isfinite(x) || !(x > 0) || x > limits::kMaxAbsEntry) {
      defects.add(at, "must be a number greater than 0 and at most " +
                          number_text(limits::kMaxAbsEntry) + "; it is " + value.dump());
    } else {
      scales.push_back(x);
    }
  }
  if (scales.size() == found->size()) p.variants.feature_scales = std::move(scales);
}

void read_feature_names(const Json& json, ProblemSpec& p, DefectList& defects) {
  const auto found = json.find("feature_names");
  if (found == json.end()) return;
  const std::string want =
      "must be a list of " + (p.n_e == 0
                                  ? std::string("names, one per row of W_E")
                                  : count_of(p.n_e, "name", "names") + " (one per row of W_E)");
  if (!found->is_array()) {
    defects.add("feature_names", want + "; it is " + describe_json_type(*found));
    return;
  }
  if (p.n_e != 0 && found->size() != p.n_e) {
    defects.add("feature_names", want + "; it has " + std::to_string(found->size()));
    return;
  }
  std::vector<std::string> names;
  for (std::size_t k = 0; k < found->size(); ++k) {
    const Json& value = (*found)[k];
    const std::string at = "feature_names[" + std::to_string(k) + "]";
    if (!value.is_string()) {
      defects.add(at, "must be a string; it is " + describe_json_type(value));
    } else if (const auto& name = value.get_ref<const std::string&>();
               name.empty() || name.size() > limits::kMaxFeatureNameBytes) {
      defects.add(at, "must be 1 to " + std::to_string(limits::kMaxFeatureNameBytes) +
                          " bytes long (a row's label); it is " + std::to_string(name.size()));
    } else {
      names.push_back(name);
    }
  }
  if (names.size() == found->size()) p.feature_names = std::move(names);
}

}  // namespace

void read_variant_fields(const Json& json, ProblemSpec& p, DefectList& defects) {
  read_feature_names(json, p, defects);
  const auto found = json.find("variants");
  if (found == json.end()) return;
  if (!found->is_object()) {
    defects.add("variants",
                "must be an object with permute_features, permute_outputs and feature_scales "
                "(each optional); it is " +
                    describe_json_type(*found));
    return;
  }
  check_unknown_keys(*found, kVariantFields, "variants.", defects);
  read_flag(*found, "permute_features", p.variants.permute_features, defects);
  read_flag(*found, "permute_outputs", p.variants.permute_outputs, defects);
  read_feature_scales(*found, p, defects);
}

}  // namespace headgrader

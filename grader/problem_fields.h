// Reading a problem file's fields (API.md §2) into a ProblemSpec, collecting every defect rather
// than stopping at the first, so an instructor fixes a file in one pass.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "headgrader/problem.h"
#include "headgrader/report.h"

namespace headgrader {

class DefectList {
 public:
  explicit DefectList(std::string file) : file_(std::move(file)) {}
  void add(std::string field, std::string message) {
    defects_.push_back(Defect{file_, std::move(field), std::move(message)});
  }
  bool empty() const { return defects_.empty(); }
  std::size_t size() const { return defects_.size(); }
  Defect& last() { return defects_.back(); }
  const std::string& file() const { return file_; }
  std::vector<Defect> take() { return std::move(defects_); }

 private:
  std::string file_;
  std::vector<Defect> defects_;
};

// Shared readers: each reports its own defect and returns nothing on failure.
std::optional<std::int64_t> read_integer(const Json& value, const std::string& field,
                                         std::int64_t low, std::int64_t high, DefectList& defects);
std::optional<Matrix> read_matrix(const Json& value, const std::string& field, DefectList& defects,
                                  std::size_t max_columns);
// An `expected` that does not parse, for a defect: "column C: " (with "line L, " first when
// the source has several lines), then the error's render (the reason, the line, a caret).
std::string expected_error_text(std::string_view source, const ExpectedSyntaxError& error);
// Reads `mistakes` (author_mistakes.cc); needs the classes and n_v read.
void read_author_mistakes(const Json& json, ProblemSpec& problem, DefectList& defects);
// Reads `variants` and `feature_names` (variant_fields.cc); needs n_e read.
void read_variant_fields(const Json& json, ProblemSpec& problem, DefectList& defects);
// Flags keys of `object` not in `known`, suggesting the nearest known one.
void check_unknown_keys(const Json& object, std::span<const char* const> known,
                        const std::string& prefix, DefectList& defects);

// The parts of read_problem_fields that live in problem_weights.cc: `strings` (needs the
// alphabet) and submit/given/reference (need n_e and n_v).
void read_problem_strings(const Json& json, ProblemSpec& problem, DefectList& defects);
void read_problem_weights(const Json& json, ProblemSpec& problem, DefectList& defects);

// Fills every field of `problem` that can be read from `json` (an object), with defaults,
// and the parsed `expected`, n_e and n_v when those parts are sound. `file_name` is the
// file's name without its folder (the id must be it without ".json"). Reports each defect to
// `defects`.
void read_problem_fields(const Json& json, const std::string& file_name, ProblemSpec& problem,
                         DefectList& defects);

}  // namespace headgrader

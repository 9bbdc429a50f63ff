// Each student's variant of a served problem (API.md §15): relabeled (headgrader/variant.h) and
// proved by grading its reference once, then kept, so that a class of 1 000 students costs one
// proof per variant, not one per request. A catalog snapshot owns one (problem_catalog.h): a
// reload or a PUT starts afresh, so no variant outlives the problem it was made from.
// Thread-safety: every member may be called from any thread.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "headgrader/limits.h"
#include "headgrader/problem.h"
#include "headgrader/result.h"
#include "headgrader/variant.h"

namespace headgrader::server {

// A problem as one student sees it: as written, or their variant.
struct ProblemView {
  std::shared_ptr<const Problem> problem;  // what they are graded on; problem->variant its id
  // GET /v1/problems/{id}: every field but `reference`, with "variant" for a variant. Valid
  // while `problem` and the snapshot it came from are held.
  std::string_view json;
};

class VariantCache {
 public:
  explicit VariantCache(std::size_t capacity = limits::kMaxCachedVariants,
                        std::size_t students = limits::kMaxCachedStudentVariants);

  // The variant of `student` (derive_relabeling with `secret`, which must draw one: a secret and
  // a problem with `variants`), as relabeled() gives it. Which variant a student has is
  // remembered too (up to `students` of them, the oldest forgotten first).
  Result<ProblemView> of_student(const std::shared_ptr<const Problem>& problem,
                                 std::string_view secret, std::string_view student) const;

  // `problem` relabeled by `relabeling` (not the identity), proved by grading its reference.
  // The first call for a variant proves it; later ones find it, until kMaxCachedVariants other
  // variants were proved after it. Refused (internal_error, naming the variant and the defect)
  // when the relabeled reference fails, which the math says cannot happen (variant.h).
  Result<ProblemView> relabeled(const std::shared_ptr<const Problem>& problem,
                                const Relabeling& relabeling) const;

 private:
  struct Served {
    Problem problem;
    std::string json;
  };
  static ProblemView view_of(const std::shared_ptr<const Served>& served);
  Result<std::shared_ptr<const Served>> served(const std::shared_ptr<const Problem>& problem,
                                               const Relabeling& relabeling) const;

  const std::size_t capacity_;
  const std::size_t students_capacity_;
  mutable std::mutex mutex_;  // guards the four below; never held while proving
  mutable std::unordered_map<std::string, std::shared_ptr<const Served>>
      served_;                             // id "\0" variant
  mutable std::deque<std::string> order_;  // served_'s keys, oldest first: the first to go
  // id "\0" student -> their variant; the same entries as served_ (kept alive when evicted there)
  mutable std::unordered_map<std::string, std::shared_ptr<const Served>> students_;
  mutable std::deque<std::string> student_order_;
};

}  // namespace headgrader::server

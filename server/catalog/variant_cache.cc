#include "variant_cache.h"

#include <utility>
#include <variant>
#include <vector>

#include "headgrader/report.h"

namespace headgrader::server {

VariantCache::VariantCache(std::size_t capacity, std::size_t students)
    : capacity_(capacity == 0 ? 1 : capacity), students_capacity_(students) {}

ProblemView VariantCache::view_of(const std::shared_ptr<const Served>& served) {
  // The view's problem shares the entry's ownership, so the JSON lives as long as it.
  return {std::shared_ptr<const Problem>(served, &served->problem), served->json};
}

Result<ProblemView> VariantCache::relabeled(const std::shared_ptr<const Problem>& problem,
                                            const Relabeling& relabeling) const {
  Result<std::shared_ptr<const Served>> found = served(problem, relabeling);
  if (!found) return found.error();
  return view_of(*found);
}

Result<ProblemView> VariantCache::of_student(const std::shared_ptr<const Problem>& problem,
                                             std::string_view secret,
                                             std::string_view student) const {
  std::string key = problem->id;
  key += '\0';
  key += student;
  {
    const std::lock_guard lock(mutex_);
    if (const auto found = students_.find(key); found != students_.end()) {
      return view_of(found->second);
    }
  }
  Result<std::shared_ptr<const Served>> found =
      served(problem, derive_relabeling(secret, *problem, student));
  if (!found) return found.error();
  const std::lock_guard lock(mutex_);
  if (students_capacity_ > 0 && students_.emplace(key, *found).second) {
    student_order_.push_back(std::move(key));
    while (student_order_.size() > students_capacity_) {
      students_.erase(student_order_.front());
      student_order_.pop_front();
    }
  }
  return view_of(*found);
}

Result<std::shared_ptr<const VariantCache::Served>> VariantCache::served(
    const std::shared_ptr<const Problem>& problem, const Relabeling& relabeling) const {
  const std::string variant = variant_id(relabeling);
  std::string key = problem->id;
  key += '\0';
  key += variant;
  {
    const std::lock_guard lock(mutex_);
    if (const auto found = served_.find(key); found != served_.end()) return found->second;
  }
  // Proved outside the lock: two requests for a new variant at once may both prove it (the
  // same result), while gradings of every other variant go on.
  ProblemOrDefects derived = relabel_problem(*problem, relabeling);
  if (const auto* defects = std::get_if<std::vector<Defect>>(&derived)) {
    return Error{ErrorCode::kInternalError,
                 "the variant " + variant + " of problem " + problem->id +
                     " cannot be served: its reference, relabeled, " +
                     (defects->empty() ? std::string("was refused")
                                       : "was refused (" + defects->front().to_string() + ")") +
                     "; the course staff should look at the problem's variants",
                 ""};
  }
  auto served = std::make_shared<Served>(Served{std::move(std::get<Problem>(derived)), ""});
  served->json = problem_to_json(served->problem).dump();
  const std::lock_guard lock(mutex_);
  const auto [at, inserted] = served_.emplace(key, std::move(served));
  if (inserted) {
    order_.push_back(std::move(key));
    while (order_.size() > capacity_) {
      served_.erase(order_.front());
      order_.pop_front();
    }
  }
  return at->second;
}

}  // namespace headgrader::server

#include "headgrader/grade_cancel.h"

namespace headgrader {
namespace {

thread_local const std::atomic<bool>* current = nullptr;

}  // namespace

GradeCancelScope::GradeCancelScope(const std::atomic<bool>& cancelled) : previous_(current) {
  current = &cancelled;
}

GradeCancelScope::~GradeCancelScope() { current = previous_; }

bool grading_cancelled() { return current != nullptr && current->load(std::memory_order_relaxed); }

}  // namespace headgrader

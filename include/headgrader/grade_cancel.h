// Cutting a grading short from another thread, for a server whose client has gone: while a
// GradeCancelScope lives on a thread, grade() on that thread looks at its flag between
// prefixes and strings and, once it is set, stops early. A report cut short is meaningless
// and must be dropped. Without a scope (the CLI, the tests), nothing is ever cut.
// Thread-safety: the flag may be set from any thread; a scope belongs to its thread.
#pragma once

#include <atomic>

namespace headgrader {

class GradeCancelScope {
 public:
  explicit GradeCancelScope(const std::atomic<bool>& cancelled);
  ~GradeCancelScope();
  GradeCancelScope(const GradeCancelScope&) = delete;
  GradeCancelScope& operator=(const GradeCancelScope&) = delete;

 private:
  const std::atomic<bool>* previous_;
};

// Whether the grading on this thread is to stop (a relaxed load: a few nanoseconds).
bool grading_cancelled();

}  // namespace headgrader

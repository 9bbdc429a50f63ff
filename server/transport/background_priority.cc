#include "background_priority.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "headgrader/limits.h"

namespace headgrader::server {

void run_at_background_priority() {
  thread_local bool lowered = false;
  if (lowered) return;
  lowered = true;
  // PRIO_PROCESS with a thread id names that one thread on Linux (setpriority(2), BUGS).
  const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
  (void)::setpriority(PRIO_PROCESS, tid, limits::kBackgroundNice);
}

}  // namespace headgrader::server

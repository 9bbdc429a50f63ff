// The work that may take seconds (long gradings, problem loads and reloads) runs on threads
// of its own at a lower scheduling priority than the threads that read and write. On a small
// machine those threads share the cores with it: at equal priority a waking io thread could
// wait for the scheduler behind two seconds-long proofs (CI saw /healthz take 318 ms on two
// cores), while at a higher nice value the kernel gives the io threads the core as soon as
// they have a request. The long work still gets every core the io threads leave idle.
#pragma once

namespace headgrader::server {

// Lowers the calling thread's priority to limits::kBackgroundNice, once per thread (Linux
// sets nice values per thread). A failure (an RLIMIT_NICE sandbox, say) leaves the thread as
// it was: the priority is a preference, never a reason not to grade.
void run_at_background_priority();

}  // namespace headgrader::server

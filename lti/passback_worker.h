// The thread that empties the passback outbox: it claims the scores that are due, sends each
// through the AGS client, and records the outcome: sent, failed (a 4xx other than 401/429), or
// pending again after an exponential back-off (limits::kPassbackFirstBackoff doubling up to
// kPassbackMaxBackoff). It wakes when a score is queued and at least once per poll interval
// (scores queued by other servers on a shared store, retries that came due).
// Thread-safety: notify() from any thread; the destructor stops and joins the thread.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "ags_client.h"
#include "lti_config.h"
#include "score_outbox.h"

namespace headgrader::lti {

struct BackoffPolicy {
  std::chrono::milliseconds first = limits::kPassbackFirstBackoff;
  std::chrono::milliseconds max = limits::kPassbackMaxBackoff;
  std::chrono::milliseconds poll = std::chrono::milliseconds(1000);
};

// The wait after `attempts` failed attempts (1: first).
std::chrono::milliseconds backoff_after(int attempts, const BackoffPolicy& policy);

class PassbackWorker {
 public:
  // `log` gets one line per attempt that did not succeed (never a token).
  PassbackWorker(const LtiConfig& config, ScoreOutbox& outbox, AgsClient& ags, BackoffPolicy policy,
                 std::function<void(const std::string&)> log);
  ~PassbackWorker();
  PassbackWorker(const PassbackWorker&) = delete;
  PassbackWorker& operator=(const PassbackWorker&) = delete;

  // A score was queued: look now.
  void notify();

 private:
  void run();
  void send_due();

  const LtiConfig& config_;
  ScoreOutbox& outbox_;
  AgsClient& ags_;
  const BackoffPolicy policy_;
  std::function<void(const std::string&)> log_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool notified_ = false;
  bool stopping_ = false;
  std::thread thread_;  // last: started once the rest is ready
};

}  // namespace headgrader::lti

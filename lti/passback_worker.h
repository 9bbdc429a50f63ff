// The threads that empty the passback outbox. One claims the scores that are due and queues
// each in the lane of its line item's host (scheme, host and port); limits::kPassbackSenders
// threads send them, each lane's one at a time and in order, and no lane on two threads at
// once: a host that accepts and never answers holds one thread for kLtiFetchTimeout per
// score, and the other hosts' scores go out meanwhile on the others. Each send records its
// outcome: sent, failed (a 4xx other than 401/429), or pending again after an exponential
// back-off (limits::kPassbackFirstBackoff doubling up to kPassbackMaxBackoff). A claimed
// score is sent only while its lease has kPassbackWorstSend left: one that waited behind a
// slow host longer is left in the outbox, where the next claim finds it once the lease is
// over, so no two servers ever send one score at once. The claimer wakes when a score is
// queued and at least once per poll interval (scores queued by other servers on a shared
// store, retries that came due).
// Thread-safety: notify() from any thread; the destructor stops and joins the threads.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

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

// The lane of a line item URL: "scheme://host:port" (the whole URL when it cannot be split).
std::string passback_lane(std::string_view lineitem);

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
  struct Claimed {
    OutboxEntry entry;
    Clock::time_point lease_until;
  };
  struct Lane {
    std::deque<Claimed> waiting;
    bool sending = false;  // a sender has its front score
  };

  void run();         // the claimer
  void send_lanes();  // each sender
  void claim_due();
  void send(const OutboxEntry& entry);  // one attempt and its outcome

  const LtiConfig& config_;
  ScoreOutbox& outbox_;
  AgsClient& ags_;
  const BackoffPolicy policy_;
  std::function<void(const std::string&)> log_;
  std::mutex mutex_;
  std::condition_variable wake_;  // the claimer's
  std::condition_variable work_;  // the senders'
  bool notified_ = false;
  bool stopping_ = false;
  std::map<std::string, Lane> lanes_;  // by passback_lane(); a lane goes when it is empty
  std::size_t queued_ = 0;             // scores waiting in all lanes
  std::vector<std::thread> senders_;
  std::thread thread_;  // last: started once the rest is ready
};

}  // namespace headgrader::lti

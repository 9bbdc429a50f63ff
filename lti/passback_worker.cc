#include "passback_worker.h"

#include "headgrader/limits.h"

namespace headgrader::lti {

std::chrono::milliseconds backoff_after(int attempts, const BackoffPolicy& policy) {
  std::chrono::milliseconds wait = policy.first;
  for (int i = 1; i < attempts && wait < policy.max; ++i) wait *= 2;
  return std::min(wait, policy.max);
}

PassbackWorker::PassbackWorker(const LtiConfig& config, ScoreOutbox& outbox, AgsClient& ags,
                               BackoffPolicy policy, std::function<void(const std::string&)> log)
    : config_(config),
      outbox_(outbox),
      ags_(ags),
      policy_(policy),
      log_(std::move(log)),
      thread_([this] { run(); }) {}

PassbackWorker::~PassbackWorker() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void PassbackWorker::notify() {
  {
    const std::lock_guard lock(mutex_);
    notified_ = true;
  }
  wake_.notify_all();
}

void PassbackWorker::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    notified_ = false;
    lock.unlock();
    send_due();
    lock.lock();
    wake_.wait_for(lock, policy_.poll, [this] { return stopping_ || notified_; });
  }
}

void PassbackWorker::send_due() {
  const Clock::time_point now = Clock::now();
  Result<std::vector<OutboxEntry>> due =
      outbox_.claim_due(now, now + limits::kPassbackLease, limits::kPassbackClaimBatch);
  if (!due) {
    log_("passback: the outbox cannot be read: " + due.error().message);
    return;
  }
  for (const OutboxEntry& entry : *due) {
    const Platform* platform = config_.find(entry.issuer, entry.client_id);
    if (platform == nullptr) {
      (void)outbox_.mark_failed(entry.id, 0, "the platform is no longer in the LTI configuration");
      continue;
    }
    const SendOutcome outcome = ags_.post_score(*platform, entry.score, Clock::now());
    Result<bool> marked = true;
    if (outcome.kind == SendOutcome::Kind::kSent) {
      marked = outbox_.mark_sent(entry.id, outcome.status);
    } else if (outcome.kind == SendOutcome::Kind::kFailed) {
      log_("passback " + entry.id + ": failed: " + outcome.error);
      marked = outbox_.mark_failed(entry.id, outcome.status, outcome.error);
    } else {
      const auto wait = backoff_after(entry.attempts + 1, policy_);
      log_("passback " + entry.id + ": attempt " + std::to_string(entry.attempts + 1) +
           " did not reach the platform (" + outcome.error + "); next in " +
           std::to_string(wait.count()) + " ms");
      marked = outbox_.mark_retry(entry.id, Clock::now() + wait, outcome.status, outcome.error);
    }
    if (!marked)
      log_("passback " + entry.id + ": cannot record the outcome: " + marked.error().message);
  }
}

}  // namespace headgrader::lti

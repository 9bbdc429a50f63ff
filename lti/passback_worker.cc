#include "passback_worker.h"

#include "common/limits.h"
#include "http_client.h"

namespace headgrader::lti {

std::chrono::milliseconds backoff_after(int attempts, const BackoffPolicy& policy) {
  std::chrono::milliseconds wait = policy.first;
  for (int i = 1; i < attempts && wait < policy.max; ++i) wait *= 2;
  return std::min(wait, policy.max);
}

std::string passback_lane(std::string_view lineitem) {
  const std::optional<UrlParts> url = split_url(lineitem);
  if (!url) return std::string(lineitem);
  return std::string(url->https ? "https://" : "http://") + url->host + ":" + url->port;
}

PassbackWorker::PassbackWorker(const LtiConfig& config, ScoreOutbox& outbox, AgsClient& ags,
                               BackoffPolicy policy, std::function<void(const std::string&)> log)
    : config_(config), outbox_(outbox), ags_(ags), policy_(policy), log_(std::move(log)) {
  for (std::size_t i = 0; i < limits::kPassbackSenders; ++i) {
    senders_.emplace_back([this] { send_lanes(); });
  }
  thread_ = std::thread([this] { run(); });
}

PassbackWorker::~PassbackWorker() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  work_.notify_all();
  thread_.join();
  for (std::thread& sender : senders_) sender.join();
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
    claim_due();
    lock.lock();
    wake_.wait_for(lock, policy_.poll, [this] { return stopping_ || notified_; });
  }
}

void PassbackWorker::claim_due() {
  std::size_t room = 0;
  {
    const std::lock_guard lock(mutex_);
    room = limits::kPassbackMaxQueued - std::min(queued_, limits::kPassbackMaxQueued);
  }
  if (room == 0) return;
  const Clock::time_point now = Clock::now();
  const Clock::time_point lease_until = now + limits::kPassbackLease;
  Result<std::vector<OutboxEntry>> due =
      outbox_.claim_due(now, lease_until, std::min(room, limits::kPassbackClaimBatch));
  if (!due) {
    log_("passback: the outbox cannot be read: " + due.error().message);
    return;
  }
  std::vector<OutboxEntry> entries = std::move(due).value();
  if (entries.empty()) return;
  {
    const std::lock_guard lock(mutex_);
    for (OutboxEntry& entry : entries) {
      Lane& lane = lanes_[passback_lane(entry.score.lineitem)];
      // Claimed again (its last lease ran out while it waited): one copy, the new lease.
      bool renewed = false;
      for (Claimed& waiting : lane.waiting) {
        if (waiting.entry.id == entry.id) {
          waiting.lease_until = lease_until;
          renewed = true;
        }
      }
      if (renewed) continue;
      lane.waiting.push_back({std::move(entry), lease_until});
      ++queued_;
    }
  }
  work_.notify_all();
}

void PassbackWorker::send_lanes() {
  std::unique_lock lock(mutex_);
  while (true) {
    // The lane whose front score has waited longest among those no sender has.
    auto chosen = lanes_.end();
    for (auto lane = lanes_.begin(); lane != lanes_.end(); ++lane) {
      if (lane->second.sending || lane->second.waiting.empty()) continue;
      if (chosen == lanes_.end() ||
          lane->second.waiting.front().lease_until < chosen->second.waiting.front().lease_until) {
        chosen = lane;
      }
    }
    if (stopping_) return;
    if (chosen == lanes_.end()) {
      work_.wait(lock);
      continue;
    }
    Lane& lane = chosen->second;
    const Claimed claimed = std::move(lane.waiting.front());
    lane.waiting.pop_front();
    --queued_;
    lane.sending = true;
    lock.unlock();
    // A lease too short for a whole send: another claim may take the score before this one
    // ends, so it stays in the outbox for that claim.
    if (Clock::now() + limits::kPassbackWorstSend < claimed.lease_until) send(claimed.entry);
    lock.lock();
    lane.sending = false;
    if (lane.waiting.empty()) lanes_.erase(chosen);
    work_.notify_all();  // the lane is free for another sender
  }
}

void PassbackWorker::send(const OutboxEntry& entry) {
  const Platform* platform = config_.find(entry.issuer, entry.client_id);
  if (platform == nullptr) {
    (void)outbox_.mark_failed(entry.id, 0, "the platform is no longer in the LTI configuration");
    return;
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

}  // namespace headgrader::lti

#include "score_outbox.h"

namespace headgrader::lti {

OutboxEntry* MemoryScoreOutbox::find(const std::string& id) {
  for (OutboxEntry& entry : entries_) {
    if (entry.id == id) return &entry;
  }
  return nullptr;
}

OutboxEntry* MemoryScoreOutbox::attempted(const std::string& id, int status,
                                          const std::string& error) {
  OutboxEntry* entry = find(id);
  if (entry == nullptr) return nullptr;
  entry->attempts += 1;
  entry->last_status = status;
  entry->last_error = error;
  return entry;
}

Result<std::string> MemoryScoreOutbox::enqueue(OutboxEntry entry) {
  const std::lock_guard lock(mutex_);
  if (!entry.submission_id.empty()) {
    for (const OutboxEntry& existing : entries_) {
      if (existing.submission_id == entry.submission_id) return existing.id;
    }
  }
  entry.id = "pb_" + std::to_string(next_id_++);
  entry.status = "pending";
  entry.attempts = 0;
  entries_.push_back(entry);
  leases_.push_back(Clock::time_point{});
  return entry.id;
}

Result<std::vector<OutboxEntry>> MemoryScoreOutbox::claim_due(Clock::time_point now,
                                                              Clock::time_point lease_until,
                                                              std::size_t max) {
  const std::lock_guard lock(mutex_);
  std::vector<OutboxEntry> due;
  for (std::size_t i = 0; i < entries_.size() && due.size() < max; ++i) {
    OutboxEntry& entry = entries_[i];
    if (entry.status != "pending" || entry.next_attempt > now || leases_[i] > now) continue;
    leases_[i] = lease_until;
    due.push_back(entry);
  }
  return due;
}

Result<bool> MemoryScoreOutbox::mark_sent(const std::string& id, int status) {
  const std::lock_guard lock(mutex_);
  OutboxEntry* entry = attempted(id, status, "");
  if (entry == nullptr) return false;
  entry->status = "sent";
  return true;
}

Result<bool> MemoryScoreOutbox::mark_retry(const std::string& id, Clock::time_point next_attempt,
                                           int status, const std::string& error) {
  const std::lock_guard lock(mutex_);
  OutboxEntry* entry = attempted(id, status, error);
  if (entry == nullptr) return false;
  entry->next_attempt = next_attempt;
  leases_[static_cast<std::size_t>(entry - entries_.data())] = Clock::time_point{};
  return true;
}

Result<bool> MemoryScoreOutbox::mark_failed(const std::string& id, int status,
                                            const std::string& error) {
  const std::lock_guard lock(mutex_);
  OutboxEntry* entry = attempted(id, status, error);
  if (entry == nullptr) return false;
  entry->status = "failed";
  return true;
}

Result<std::vector<OutboxEntry>> MemoryScoreOutbox::list(std::string_view status) {
  const std::lock_guard lock(mutex_);
  std::vector<OutboxEntry> out;
  for (const OutboxEntry& entry : entries_) {
    if (status.empty() || entry.status == status) out.push_back(entry);
  }
  return out;
}

Result<bool> MemoryScoreOutbox::retry(const std::string& id, Clock::time_point now) {
  const std::lock_guard lock(mutex_);
  OutboxEntry* entry = find(id);
  if (entry == nullptr || entry->status != "failed") return false;
  entry->status = "pending";
  entry->next_attempt = now;
  leases_[static_cast<std::size_t>(entry - entries_.data())] = Clock::time_point{};
  return true;
}

}  // namespace headgrader::lti

// The passback outbox (API.md §11): scores waiting to reach a platform, each tied to the
// grading record it came from. The store fills it in the transaction of the record and
// implements it across servers (server/lti_tool/lti_store_adapter.h); MemoryScoreOutbox is the
// in-process queue for one server without a store (scores waiting there die with the process).
// Thread-safety: implementations are safe to call from any thread.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "ags_client.h"
#include "common/result.h"
#include "once_set.h"

namespace headgrader::lti {

struct OutboxEntry {
  std::string id;                 // the outbox's own id
  std::string submission_id;      // the grading record's, or "" without a store
  std::string issuer, client_id;  // which platform (LtiConfig::find)
  Score score;
  std::string status = "pending";  // pending | sent | failed
  int attempts = 0;
  int last_status = 0;  // the platform's last HTTP status, 0 when none answered
  std::string last_error;
  Clock::time_point next_attempt{};
};

class ScoreOutbox {
 public:
  virtual ~ScoreOutbox() = default;
  // Adds `entry` as pending, due now; returns its id. At most one entry per submission_id
  // (when not empty): a second enqueue of one record returns the first entry's id.
  virtual Result<std::string> enqueue(OutboxEntry entry) = 0;
  // Up to `max` pending entries due at `now`, each leased until `lease_until`: no other
  // claim returns it before then, so two workers (servers) never send one score at once.
  virtual Result<std::vector<OutboxEntry>> claim_due(Clock::time_point now,
                                                     Clock::time_point lease_until,
                                                     std::size_t max) = 0;
  // The outcome of one attempt (attempts is incremented by each).
  virtual Result<bool> mark_sent(const std::string& id, int status) = 0;
  virtual Result<bool> mark_retry(const std::string& id, Clock::time_point next_attempt, int status,
                                  const std::string& error) = 0;
  virtual Result<bool> mark_failed(const std::string& id, int status, const std::string& error) = 0;
  // Entries with this status ("" for all), oldest first.
  virtual Result<std::vector<OutboxEntry>> list(std::string_view status) = 0;
  // A failed entry back to pending, due now (POST /v1/passback/{id}/retry); false when `id`
  // is not a failed entry.
  virtual Result<bool> retry(const std::string& id, Clock::time_point now) = 0;
};

class MemoryScoreOutbox final : public ScoreOutbox {
 public:
  Result<std::string> enqueue(OutboxEntry entry) override;
  Result<std::vector<OutboxEntry>> claim_due(Clock::time_point now, Clock::time_point lease_until,
                                             std::size_t max) override;
  Result<bool> mark_sent(const std::string& id, int status) override;
  Result<bool> mark_retry(const std::string& id, Clock::time_point next_attempt, int status,
                          const std::string& error) override;
  Result<bool> mark_failed(const std::string& id, int status, const std::string& error) override;
  Result<std::vector<OutboxEntry>> list(std::string_view status) override;
  Result<bool> retry(const std::string& id, Clock::time_point now) override;

 private:
  OutboxEntry* find(const std::string& id);  // mutex_ held
  // One more attempt of entry `id`, with its HTTP status and error; null when unknown.
  OutboxEntry* attempted(const std::string& id, int status,
                         const std::string& error);  // mutex_ held

  std::mutex mutex_;
  std::vector<OutboxEntry> entries_;
  std::vector<Clock::time_point> leases_;  // beside entries_
  std::size_t next_id_ = 1;
};

}  // namespace headgrader::lti

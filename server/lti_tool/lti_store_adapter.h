// LTI's single-use values, student tokens and passback outbox (lti/once_set.h,
// lti/launch_tokens.h, lti/score_outbox.h) kept in the submission record's store (API.md §8),
// so that they survive a restart and are shared by every server of one PostgreSQL database:
// a state or nonce used on one server is a replay on all, a student token issued by one is
// honoured by all, and a queued score is claimed by exactly one.
// Scores are queued by SubmissionStore::commit() in the transaction of their record, never by
// StoreScoreOutbox::enqueue() (which refuses): a score without its record cannot exist.
// Thread-safety: as the store's, every method from any thread.
#pragma once

#include "launch_tokens.h"
#include "once_set.h"
#include "score_outbox.h"
#include "submission_store.h"

namespace headgrader::server {

class StoreOnceSet final : public lti::OnceSet {
 public:
  explicit StoreOnceSet(store::SubmissionStore& store) : store_(store) {}
  Result<bool> consume(std::string_view kind, std::string_view value,
                       lti::Clock::time_point expires, lti::Clock::time_point now) override;

 private:
  store::SubmissionStore& store_;
};

class StoreLaunchTokens final : public lti::LaunchTokens {
 public:
  explicit StoreLaunchTokens(store::SubmissionStore& store) : store_(store) {}
  Result<std::string> issue(const lti::LaunchBinding& binding) override;
  Result<std::optional<lti::LaunchBinding>> find(std::string_view token,
                                                 lti::Clock::time_point now) override;
  Result<std::optional<lti::LaunchBinding>> find_launch(std::string_view launch_id,
                                                        lti::Clock::time_point now) override;

 private:
  store::SubmissionStore& store_;
};

class StoreScoreOutbox final : public lti::ScoreOutbox {
 public:
  explicit StoreScoreOutbox(store::SubmissionStore& store) : store_(store) {}
  // Refuses (internal): scores go in with their record (see above).
  Result<std::string> enqueue(lti::OutboxEntry entry) override;
  Result<std::vector<lti::OutboxEntry>> claim_due(lti::Clock::time_point now,
                                                  lti::Clock::time_point lease_until,
                                                  std::size_t max) override;
  Result<bool> mark_sent(const std::string& id, int status) override;
  Result<bool> mark_retry(const std::string& id, lti::Clock::time_point next_attempt, int status,
                          const std::string& error) override;
  Result<bool> mark_failed(const std::string& id, int status, const std::string& error) override;
  Result<std::vector<lti::OutboxEntry>> list(std::string_view status) override;
  Result<bool> retry(const std::string& id, lti::Clock::time_point now) override;

 private:
  store::SubmissionStore& store_;
};

// The outbox item of a score for `binding` (its line item and platform), as commit() queues it.
store::PassbackRequest passback_request(const lti::LaunchBinding& binding, const lti::Score& score);

}  // namespace headgrader::server

// The grade-passback outbox of LTI (API.md §11), kept by the store so that a score survives a
// restart: a score is queued in the transaction of its record (SubmissionRecords::commit),
// then claimed, sent and marked by the passback worker of any server on the database.
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "store_time.h"

namespace headgrader::store {

// A score to send to an LTI platform (§11), queued in the same transaction as its record.
// `payload` is the JSON body to POST; the rest says where and as whom.
struct PassbackRequest {
  std::string issuer;
  std::string client_id;
  std::string lineitem;  // the AGS line item URL
  std::string payload;
  // For "passback": "best", set instead of trusting `payload`: the score and its timestamp are
  // decided in the record's commit, in commit order, and best_payload(score, timestamp) gives
  // the body then. The score is the best of the student's own committed gradings of the
  // problem through the record's LMS link, this one included; the timestamp is the record's
  // time, or 1 ms after the last one queued for this line item for this student if that is not
  // earlier. A platform keeps the score with the latest timestamp (AGS), so overlapping
  // gradings can never leave it below the best (a score read before an earlier grading
  // committed, sent with a later time, could).
  std::function<std::string(double score, TimeMs timestamp)> best_payload = nullptr;
};

enum class PassbackStatus { kPending, kSent, kFailed };
std::string_view to_string(PassbackStatus status);  // "pending", "sent", "failed"
std::optional<PassbackStatus> parse_passback_status(std::string_view text);

// Items of the outbox by status (headgrader_passback of GET /metrics, API.md §17).
struct PassbackCounts {
  std::int64_t pending = 0, sent = 0, failed = 0;
};

struct PassbackItem {
  std::string id;
  std::string submission_id;
  PassbackRequest request;
  PassbackStatus status = PassbackStatus::kPending;
  int attempts = 0;                // sends tried so far
  std::optional<int> last_status;  // HTTP status of the last try, if one was answered
  std::string last_error;          // "" when none
  TimeMs next_attempt = 0;         // a pending item is due from then (a claim moves it)
  TimeMs created = 0;
};

class PassbackOutbox {
 public:
  virtual ~PassbackOutbox() = default;

  // Up to `limit` pending items due at `now`, each leased until now + lease: no other claim
  // (on any server) returns it before then unless it is marked.
  virtual Result<std::vector<PassbackItem>> claim_passbacks(TimeMs now, TimeMs lease,
                                                            int limit) = 0;
  // After a try: sent (2xx), failed for good, or pending again from `next_attempt`. Each adds
  // one attempt. True when the item was marked; false (and nothing changed) when there is no
  // item `id`, as ScoreOutbox's marks answer (lti/score_outbox.h).
  virtual Result<bool> mark_passback_sent(std::string_view id, int http_status) = 0;
  virtual Result<bool> mark_passback_failed(std::string_view id, std::optional<int> http_status,
                                            std::string_view error) = 0;
  virtual Result<bool> mark_passback_retry(std::string_view id, std::optional<int> http_status,
                                           std::string_view error, TimeMs next_attempt) = 0;
  // A failed item back to pending, due at `now`; false when there is no failed item `id` (a
  // sent score is never sent again; a pending one is already due).
  virtual Result<bool> retry_passback(std::string_view id, TimeMs now) = 0;
  // Newest first, at most `limit`; every status when none is given.
  virtual Result<std::vector<PassbackItem>> list_passbacks(std::optional<PassbackStatus> status,
                                                           int limit) = 0;
  // How many items the outbox holds in each status (every server's, with a shared database).
  virtual Result<PassbackCounts> count_passbacks() = 0;
};

}  // namespace headgrader::store

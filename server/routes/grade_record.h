// The grade route's side of the submission record (API.md §8): the Idempotency-Key check and
// replay, the attempt limit, and the grading whose answer waits until its record is committed
// (PendingGrade). The router decides; the session commits and writes the answer when the
// store calls back, so that no io thread waits for the disk.
// Thread-safety: the functions are pure; a PendingGrade is used by one session.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "error_response.h"
#include "headgrader/grade_request.h"
#include "headgrader/problem.h"
#include "keys_at_cap.h"
#include "rate_limit.h"
#include "submission_store.h"

namespace headgrader::server {

// What the grade route needs beyond the problems. Without a store (--store none) it is Part 1.
struct RecordSettings {
  store::SubmissionStore* store = nullptr;
  std::optional<RateLimit> rate_limit;
  // The clock of record times and attempt windows (tests may fix it).
  std::function<store::TimeMs()> now = store::now_ms;
  // The lms keys at their cap, refused without counting again until their window has room.
  std::shared_ptr<KeysAtTheirCap> keys_at_cap = std::make_shared<KeysAtTheirCap>();
};

// Who sends a grading, as the record sees it: the key's name (none when grading is open) and
// whether it is an lms key (capped at limits::kKeyRateMultiple × the attempt limit).
struct GraderIdentity {
  std::optional<std::string> key_name;
  bool lms = false;
  // Idempotency-Keys are scoped to who authenticates: the key's name, "student:ISSUER#sub"
  // for a student token, "" when grading is open.
  std::string idempotency_scope;
};

// A grading whose answer is written once its record is committed.
struct PendingGrade {
  store::SubmissionRecord record;
  std::optional<store::PassbackRequest> passback;
  // Called once the record (and its passback) is committed, by finish().
  std::function<void()> recorded;
  // Of the body, when it came with an Idempotency-Key (the record may be moved away).
  std::optional<std::string> body_sha256;
  // The problem graded: a key's earlier record answers only a grading of its own problem.
  std::string problem;
  // The attempt limit the commit counts again (a grading with a student under --rate-limit),
  // and the grading's time, for the 429 when the commit refuses it.
  std::optional<RateLimit> rate_limit;
  store::TimeMs time = 0;
  unsigned version = 11;
  bool keep_alive = true;

  // The answer for the store's outcome: the grade (200) when this record was written; the
  // earlier answer byte for byte when another grading with the same Idempotency-Key and body
  // won; 409 idempotency_conflict when its body or its problem differed; 503 store_unavailable when
  // nothing was written. Called on the connection's own thread, not the store's: the committer's
  // thread is the one every grading of the server waits for, so it hands each outcome over and goes
  // on.
  Response finish(Result<store::CommitOutcome> outcome) const;
};

// The Idempotency-Key header's value is 1 to limits::kMaxIdempotencyKeyLength visible ASCII
// characters; the error says what came otherwise.
std::optional<Error> check_idempotency_key(std::string_view value);

// The grade answer with "submission_id" as its last key.
std::string with_submission_id(std::string_view answer, std::string_view id);

// The record of one grading at `now`, by the grade route and by a regrade alike: a new id, the
// problem and the sha256 of its file, the body as sent, the verdict and counts, the failing
// strings and the answer with its submission_id. Who sent it (student, key), a regrade's
// `regrade_of`, the LMS link and the Idempotency-Key are the caller's to add.
store::SubmissionRecord record_of(const Problem& problem, std::string_view problem_sha256,
                                  const Graded& graded, std::string body, store::TimeMs now);

// The answer to a grading past the attempt limit: 429 rate_limited, Retry-After in whole
// seconds (at least 1) until `allowed_at`, and a message saying when that is.
Response rate_limited_answer(const RateLimit& limit, bool per_key, store::TimeMs now,
                             store::TimeMs allowed_at, unsigned version, bool keep_alive);

}  // namespace headgrader::server

// The submission record of API.md §8 behind one interface, with two implementations (SQLite,
// the embedded default; PostgreSQL, for several servers on one database) opened by URL. It also
// keeps what LTI (§11) needs to survive restarts: the grade-passback outbox, single-use values
// (state, nonce) and student tokens.
// Thread-safety: every method may be called from any thread at once. commit() never waits for
// the disk: records are written in batches by the store's committer thread, which then calls
// each record's callback (on that thread; hand the work back to your own executor).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/limits.h"
#include "common/result.h"

namespace headgrader::store {

// Milliseconds since the Unix epoch, UTC. Every time in the store is one.
using TimeMs = std::int64_t;

// An Idempotency-Key as the server saw it: `scope` is the authenticating key's name ("" when
// grading is open), `key` the header's value, `body_sha256` the hex SHA-256 of the body.
struct IdempotencyTag {
  std::string scope;
  std::string key;
  std::string body_sha256;
};

// One grading, as kept. Texts are stored as given; `body` and `answer` are the request body and
// the 200 answer byte for byte (the answer with its "submission_id").
struct SubmissionRecord {
  std::string id;  // new_submission_id()
  TimeMs time = 0;
  std::string problem;
  std::string problem_sha256;
  std::optional<std::string> student;
  std::optional<std::string> key;  // the authenticating key's name
  std::string body;                // the submission as sent (its matrices, max_failures, …)
  bool passed = false;
  double score = 0;
  std::int64_t tests_total = 0;
  std::int64_t tests_passed = 0;
  std::int64_t tests_failed = 0;
  std::vector<std::string> failing_inputs;  // the inputs of the failures the answer shows
  std::string answer;
  std::optional<std::string> regrade_of;
  std::optional<IdempotencyTag> idempotency;
  std::optional<std::string> lms_context;        // LTI context id of the launch
  std::optional<std::string> lms_resource_link;  // LTI resource link id of the launch
};

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

// The bearer token a launch hands the student page (§11), kept by its hash only.
struct StudentToken {
  std::string token_sha256;  // hex
  std::string student;       // ISSUER#sub
  std::string problem;
  std::string issuer;
  std::string client_id;
  std::optional<std::string> context;
  std::optional<std::string> resource_link;
  std::optional<std::string> lineitem;  // AGS line item URL, when the launch may post scores
  TimeMs expires = 0;
  // The rest of what the launch established, as its owner (server/lti_store_adapter.h) writes
  // it: JSON text, "" when nothing more (schema version 2).
  std::string details;
};

// What commit() did. When the record's idempotency tag was already taken (by an earlier
// grading, or by another server at the same instant), nothing was written and `kept` is the
// record that holds the tag: compare its body hash and answer with that one.
// When the grading was refused for its attempt limit (CommitLimit), nothing was written and
// `limited_until` is when the window has room again.
struct CommitOutcome {
  bool inserted = false;
  SubmissionRecord kept;  // the record as stored (`inserted`) or the earlier one
  std::optional<TimeMs> limited_until;
};

// The attempt limit a grading's commit counts again inside its own transaction: at most
// `count` gradings of the record's (student, problem), regradings aside, in any window of
// `period` ms ending at the record's time. The count before grading alone lets gradings sent
// together all pass it, each before any of the others is kept.
struct CommitLimit {
  std::int64_t count = 1;
  TimeMs period = 0;
};
using CommitCallback = std::function<void(Result<CommitOutcome>)>;

// Filters of GET /v1/submissions; times are [since, until).
struct SubmissionQuery {
  std::optional<std::string> problem;
  std::optional<std::string> student;
  std::optional<bool> passed;
  std::optional<TimeMs> since;
  std::optional<TimeMs> until;
  int limit = limits::kDefaultListLimit;  // 1..limits::kMaxListLimit
  std::string cursor;                     // "" for the first page, else a next_cursor
};

struct SubmissionPage {
  std::vector<SubmissionRecord> records;  // newest first
  std::optional<std::string> next_cursor;
};

// Which gradings an attempt limit counts (regradings never count).
struct RateScope {
  enum class Kind { kStudentProblem, kKey } kind = Kind::kStudentProblem;
  std::string student;  // kStudentProblem
  std::string problem;  // kStudentProblem
  std::string key;      // kKey: the key's name
};

// Gradings in a window, counted up to a cap.
struct WindowUse {
  std::int64_t count = 0;               // min(gradings in the window, cap)
  std::optional<TimeMs> cap_th_newest;  // when count == cap: the time of the cap-th newest
};

// Per student (records with a student only), what GET /v1/problems/{id}/stats needs.
struct StudentSummary {
  std::string student;
  bool first_passed = false;  // of the student's first grading (regradings aside)
  SubmissionRecord latest;    // the latest record, regradings included
};
struct StatsInputs {
  std::int64_t submissions = 0;          // gradings of the problem, regradings aside
  std::vector<StudentSummary> students;  // ascending student
};

// Batches and records that went through the committer (for the benchmark's mean batch size).
struct CommitCounters {
  std::uint64_t batches = 0;
  std::uint64_t records = 0;
};

class SubmissionStore {
 public:
  virtual ~SubmissionStore() = default;

  // Writes `record` (and `passback`, when given, in the same transaction) durably, then calls
  // `done` on the committer thread: the outcome, or a store_unavailable error when nothing was
  // written. The call itself returns at once. After close(), `done` gets an error.
  virtual void commit(SubmissionRecord record, std::optional<PassbackRequest> passback,
                      CommitCallback done) = 0;
  // The same, refused (nothing written, `limited_until` set) when `limit` is given, the record
  // has a student and the limit's window already holds `limit->count` gradings of its student
  // and problem, counted in the transaction that would write it. A record whose idempotency
  // key is taken is answered by the earlier record, never refused.
  virtual void commit_limited(SubmissionRecord record, std::optional<PassbackRequest> passback,
                              std::optional<CommitLimit> limit, CommitCallback done) = 0;

  // The record holding (scope, key), if any.
  virtual Result<std::optional<SubmissionRecord>> find_idempotent(std::string_view scope,
                                                                  std::string_view key) = 0;
  virtual Result<std::optional<SubmissionRecord>> get(std::string_view id) = 0;
  // invalid_cursor (field "cursor") for a cursor this store did not make.
  virtual Result<SubmissionPage> list(const SubmissionQuery& query) = 0;
  // Gradings matching `scope` at or after `since` (regradings aside), counted up to `cap` ≥ 1.
  virtual Result<WindowUse> gradings_since(const RateScope& scope, TimeMs since,
                                           std::int64_t cap) = 0;
  virtual Result<StatsInputs> stats_inputs(std::string_view problem) = 0;
  // The latest record of every student on `problem`, ascending student.
  virtual Result<std::vector<SubmissionRecord>> latest_per_student(std::string_view problem) = 0;

  // --- The passback outbox ---
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

  // --- Single-use values (LTI state and nonce) ---
  // True the first time `value` is used while unexpired; it is then kept until `expires`.
  virtual Result<bool> use_once(std::string_view value, TimeMs expires, TimeMs now) = 0;
  // Keeps `value` until `expires`, for one take_once().
  virtual Result<bool> put_once(std::string_view value, TimeMs expires) = 0;
  // True when `value` was put and has not expired or been taken; it is gone afterwards.
  virtual Result<bool> take_once(std::string_view value, TimeMs now) = 0;

  // --- Student tokens ---
  virtual Result<bool> put_student_token(const StudentToken& token) = 0;
  // The unexpired token with this hash.
  virtual Result<std::optional<StudentToken>> find_student_token(std::string_view token_sha256,
                                                                 TimeMs now) = 0;

  virtual CommitCounters counters() const = 0;
  // Finishes the commits already queued, then refuses new ones. Idempotent.
  virtual void close() = 0;
};

// Opens the store a --store URL names: "sqlite:PATH" (a missing file is created, a missing
// folder is not) or "postgresql://…" / "postgres://…" (libpq's URI), creating or migrating
// its schema. "none" is not a store: the caller keeps nothing. Errors: store_unavailable with
// the reason (field "store").
Result<std::unique_ptr<SubmissionStore>> open_store(std::string_view url);

// A fresh record id: 12 hex digits of the time in ms, then 16 hex digits, random for the
// first id of a millisecond and counting up from it for the next ones of that millisecond,
// so that ids sort by time (one server's of one millisecond in the order it made them) and
// never collide between servers.
std::string new_submission_id(TimeMs time);
TimeMs now_ms();  // written and read as RFC 3339 by common/rfc3339.h

}  // namespace headgrader::store

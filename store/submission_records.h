// The submission record of API.md §8: each grading committed durably (with its score to pass
// back, in the same transaction), found by id or idempotency key, listed, counted for attempt
// limits and summed up for a problem's stats.
// Thread-safety: every method may be called from any thread at once. commit() never waits for
// the disk: records are written in batches by the store's committer thread, which then calls
// each record's callback (on that thread; hand the work back to your own executor).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/limits.h"
#include "common/result.h"
#include "passback_outbox.h"
#include "store_time.h"

namespace headgrader::store {

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
  // The names of the mistakes the answer's diagnosis proved (API.md §13), in its order.
  std::vector<std::string> mistakes;
  // The student's variant of the problem (API.md §15; headgrader/variant.h's id, which
  // rebuilds it); empty: graded on the problem as written.
  std::string variant;
  // The problem of the pool (`problem`) this grading was of (API.md §15); empty when `problem`
  // is a problem, not a pool.
  std::string member;
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
  // The list leaves each record's body and answer "" (they are large); with this, it reads the
  // body (the matrices as sent), the answer still "".
  bool with_bodies = false;
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

// A student's gradings of one problem, summed up for GET /v1/students.csv (API.md §16).
struct StudentProblemSummary {
  std::string student;
  std::string problem;
  std::int64_t attempts = 0;           // gradings, regradings aside
  double best_score = 0;               // the best of every grading and regrading
  std::optional<TimeMs> first_passed;  // the first grading or regrading that passed
  // The latest grading or regrading.
  TimeMs latest_time = 0;
  double latest_score = 0;
  bool latest_passed = false;
  std::vector<std::string> latest_mistakes;
};

class SubmissionRecords {
 public:
  virtual ~SubmissionRecords() = default;

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
  // One summary per student and problem (of `problem` alone when given), records without a
  // student aside, ascending student then problem (byte order).
  virtual Result<std::vector<StudentProblemSummary>> student_summaries(
      const std::optional<std::string>& problem) = 0;
};

}  // namespace headgrader::store

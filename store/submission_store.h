// The store behind one interface, with two implementations (SQLite, the embedded default;
// PostgreSQL, for several servers on one database) opened by URL: the submission record of
// API.md §8 and what LTI (§11) needs to survive restarts, each behind a narrow interface of
// its own (submission_records.h, passback_outbox.h, single_use_values.h, student_tokens.h,
// record_deletion.h)
// that a caller needing one concern can take instead of the whole store.
// Thread-safety: every method may be called from any thread at once. commit() never waits for
// the disk: records are written in batches by the store's committer thread, which then calls
// each record's callback (on that thread; hand the work back to your own executor).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/limits.h"
#include "common/result.h"
#include "passback_outbox.h"
#include "record_deletion.h"
#include "single_use_values.h"
#include "store_time.h"
#include "student_tokens.h"
#include "submission_records.h"

namespace headgrader::store {

// Batches and records that went through the committer (for the benchmark's mean batch size),
// and what GET /metrics shows of the store (API.md §17).
struct CommitCounters {
  std::uint64_t batches = 0;
  std::uint64_t records = 0;
  // batch_sizes[n]: batches of n records (1 .. limits::kMaxCommitBatch; [0] unused).
  std::vector<std::uint64_t> batch_sizes = std::vector<std::uint64_t>(limits::kMaxCommitBatch + 1);
  // Operations that failed with store_unavailable: each record not committed, each read or
  // write of a pooled connection that failed (a readiness probe's included).
  std::uint64_t errors = 0;
};

class SubmissionStore : public SubmissionRecords,
                        public PassbackOutbox,
                        public SingleUseValues,
                        public StudentTokens,
                        public RecordDeletion {
 public:
  ~SubmissionStore() override = default;

  virtual CommitCounters counters() const = 0;
  // Whether the store answers now (GET /readyz, API.md §17): a SELECT 1 on a pooled
  // connection (PostgreSQL: a connection that broke is dropped, so the next call connects
  // again and a database that came back is ready again); SQLite: also that the file at the
  // path is still the one opened and may be written. Error store_unavailable with the reason.
  virtual Result<bool> ready() = 0;
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

}  // namespace headgrader::store

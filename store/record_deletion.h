// Deleting records (API.md §17): those older than the server's --retain-days, each with its
// score passback once that is sent (a passback not yet sent keeps its record: the outbox still
// has to send that record's score); and every trace of one student, with an audit entry that
// says who deleted how much, which nothing deletes.
// Thread-safety: every method may be called from any thread at once, beside gradings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "store_time.h"

namespace headgrader::store {

// One deletion of a student's data, as the audit keeps it: never the student, only the
// SHA-256 of the name.
struct AuditEntry {
  std::string id;  // new_submission_id(at): sorts by time
  TimeMs at = 0;
  std::string key;             // the staff key's name
  std::string student_sha256;  // lower-case hex
  std::int64_t deleted = 0;    // records deleted
};

struct AuditPage {
  std::vector<AuditEntry> entries;  // newest first
  std::optional<std::string> next_cursor;
};

class RecordDeletion {
 public:
  virtual ~RecordDeletion() = default;

  // Deletes, in one transaction, up to `limit` of the oldest records whose time is before
  // `before`, each with its passback when that was sent; a record whose passback is pending
  // or failed (a staff member may still retry it) stays, with it, until a later call finds it
  // sent. Answers how many records were deleted: fewer than `limit` when no more are due.
  // Callers delete in batches (limits::kDeleteBatchRecords) so that gradings commit between
  // them. The audit is never touched.
  virtual Result<std::int64_t> delete_records_before(TimeMs before, int limit) = 0;

  // Deletes, in one transaction, every record of `student` (and with them their idempotency
  // keys), every passback of those records whatever its status, the student's tokens and
  // the time of their last score sent, and adds `audit` with `deleted` set to the number of
  // records deleted, which it answers. Nothing is deleted when it fails.
  virtual Result<std::int64_t> delete_student(std::string_view student, AuditEntry audit) = 0;

  // The audit, newest first, `limit` (1..limits::kMaxListLimit) a page; `cursor` "" for the
  // first page, else a next_cursor (bad_request, field "cursor", for any other).
  virtual Result<AuditPage> list_audit(int limit, std::string_view cursor) = 0;
};

}  // namespace headgrader::store

// A student's data, deleted on request (API.md §17): DELETE /v1/students/{student} deletes
// every record, passback, idempotency key and token of the student and answers how many
// records went; GET /v1/audit lists those deletions (the key's name and a SHA-256 of the
// student, never the student). Who may call them is the router's business (staff keys).
// Thread-safety: pure apart from the store, which is thread-safe.
#pragma once

#include <string_view>

#include "error_response.h"
#include "submission_store.h"

namespace headgrader::server {

// {"deleted": N}, with the audit entry written in the same transaction; 503 store_unavailable
// when the store fails (then nothing was deleted).
Response delete_student_data(store::SubmissionStore& store, std::string_view student,
                             std::string_view key_name, unsigned version, bool keep_alive);

// {"entries": [{"at", "key", "student_sha256", "deleted"}…], "next_cursor": "…" or null},
// newest first; the query (without '?') may give limit (1..1000, default 100) and cursor.
// Errors: bad_request naming the parameter.
Response list_audit(store::SubmissionStore& store, std::string_view query, unsigned version,
                    bool keep_alive);

}  // namespace headgrader::server

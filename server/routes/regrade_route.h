// POST /v1/problems/{id}/regrade (API.md §8, §15, §16, staff): every student's latest
// grading on a problem graded again as the problem is now, each a new record that names the
// one it regrades, or with dry_run the same answer and nothing written. Who may call it is the
// router's business.
// Thread-safety: pure apart from the store, which is thread-safe; regrade() waits for its
// commits, so the server runs it off the io threads.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "error_response.h"
#include "grade_record.h"
#include "problem_catalog.h"

namespace headgrader::server {

// The query string of POST /v1/problems/{id}/regrade: `dry_run` (true|false, default false).
// Errors: bad_request naming the parameter as field.
Result<bool> parse_regrade_query(std::string_view query);

// Grades the latest submission of every student on `problem` (a problem's or a pool's id) as
// it is now, each on the member and the variant its record names (API.md §15), the variant
// rebuilt from its id; each a new record with regrade_of, keyed to `staff_key`, with the
// sha256 of the file graded on now. A record whose member is gone, or whose matrices or variant
// no longer fit, is skipped, with the reason.
// With `dry_run` (API.md §16) the same grading and the same answer, plus "dry_run": true, with
// nothing written and nothing sent: each changed entry's submission_id is null (no record was
// made) and its regrade_of names the record it would regrade.
Response regrade(const CatalogSnapshot& snapshot, std::string_view problem,
                 const RecordSettings& records, const std::optional<std::string>& staff_key,
                 bool dry_run, unsigned version, bool keep_alive);

}  // namespace headgrader::server

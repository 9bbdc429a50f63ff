// GET /v1/problems/{id}/integrity (API.md §15, staff): the heads several students sent and the
// failing heads that are another student's head for another variant, over every grading of the
// problem kept in the record (regradings aside: they repeat a student's own head). The answer
// names students and submissions, never a matrix: neither a student's head nor the reference
// leaves the server by this route.
// Thread-safety: pure apart from the store, which is thread-safe; it reads every record of the
// problem, so the server runs it off the io threads.
#pragma once

#include "error_response.h"
#include "headgrader/problem.h"
#include "problem_catalog.h"
#include "submission_store.h"

namespace headgrader::server {

// {"problem", "compared", "skipped", "shared": [{"kind", "students", "submission_ids",
// "matches_reference"}…], "other_variant": [{"student", "submission_id", "matches_student"}…]}.
// `compared` counts the gradings compared; `skipped` those of no student, and those whose
// matrices or variant no longer fit the problem as it is now (it changed since). `problem` is a
// problem's id or a pool's: a pool's heads are compared member by member (heads of two
// problems are not the same head), the groups of every member in one answer.
Response problem_integrity(store::SubmissionStore& store, const CatalogSnapshot& snapshot,
                           std::string_view problem, unsigned version, bool keep_alive);

}  // namespace headgrader::server

// The staff routes of the submission record (API.md §8), each a function from what the router
// matched to a response: GET /v1/submissions (JSON, filters and cursor), GET
// /v1/submissions.csv (RFC 4180), GET /v1/students.csv, GET /v1/submissions/{id} and GET
// /v1/problems/{id}/stats (POST /v1/problems/{id}/regrade is regrade_route.h's). Who may call
// them is the router's business.
// Thread-safety: pure apart from the store, which is thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "body_stream.h"
#include "error_response.h"
#include "submission_store.h"

namespace headgrader::server {

// The query string (without '?') of /v1/submissions[.csv]: problem, student, passed
// (true|false), since and until (RFC 3339), limit (1..1000), cursor. Errors: bad_request
// naming the parameter as field.
Result<store::SubmissionQuery> parse_submission_query(std::string_view query, bool csv);

// `csv`: text/csv; charset=utf-8 with the header
// id,time,problem,student,key,passed,score,tests_total,tests_failed,mistakes. Without a limit it
// holds every matching record; with one, a page, and the next cursor in the X-Next-Cursor header.
// With `stream`, the CSV of every matching record is not built here: its first page is read
// (so that a store error is still a clean 503), the answer is the head alone (no body, no
// Content-Length) and *stream gives the body piece by piece (body_stream.h).
Response list_submissions(store::SubmissionStore& store, std::string_view query, bool csv,
                          unsigned version, bool keep_alive,
                          std::shared_ptr<BodyStream>* stream = nullptr);
// GET /v1/students.csv?problem=ID (API.md §16): text/csv; charset=utf-8, one row per student
// and problem (of ID alone when given), ascending student then problem, with the header
// student,problem,attempts,best_score,latest_score,passed,first_passed_at,latest_at,
// latest_mistakes. `passed` and `latest_*` are of the latest grading or regrading (as stats
// count students_passed); attempts leaves regradings out; best_score and first_passed_at look
// at both. Errors: bad_request for any other parameter.
Response students_csv(store::SubmissionStore& store, std::string_view query, unsigned version,
                      bool keep_alive);

Response get_submission(store::SubmissionStore& store, std::string_view id, unsigned version,
                        bool keep_alive);
Response problem_stats(store::SubmissionStore& store, std::string_view problem, unsigned version,
                       bool keep_alive);
// 503 store_unavailable for a store that failed to answer `error`.
Response record_unavailable(const Error& error, unsigned version, bool keep_alive);

}  // namespace headgrader::server

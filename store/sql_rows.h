// Decoding the rows that the store's SQL reads (texts, as both databases give them) back into
// numbers and records; shared by the store's files (sql_store.cc, sql_store_outbox.cc).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "sql_connection.h"
#include "submission_store.h"

namespace headgrader::store::rows {

// Every column of a record, in the order record() reads them.
inline constexpr std::string_view kColumns =
    "id, time_ms, problem, problem_sha256, student, key_name, body, passed, score, tests_total, "
    "tests_passed, tests_failed, failing_inputs, answer, regrade_of, idem_scope, idem_key, "
    "idem_body_sha256, lms_context, lms_resource_link";

// The integer or real a column holds; 0 for NULL or for a text that is not one.
std::int64_t integer(const std::optional<std::string>& text);
double real(const std::optional<std::string>& text);
// The record whose columns (kColumns, in order) start at `first`.
SubmissionRecord record(const SqlRow& row, std::size_t first = 0);

}  // namespace headgrader::store::rows

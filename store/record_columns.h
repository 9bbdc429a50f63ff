// The submissions table's columns as one table: each column's name, whether the list of
// GET /v1/submissions reads it, how a record's field is bound to it and how a row's text is
// read back. The SELECT lists, the INSERT and its binds, and the row decoder are all made
// from it, so that a new column is written here and in its migration (migrations.cc) only.
// Thread-safety: constants and pure functions.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql_connection.h"
#include "submission_records.h"

namespace headgrader::store::columns {

struct RecordColumn {
  std::string_view name;
  // False for the two large texts (the body and the answer): the list reads '' in their place.
  bool listed = true;
  SqlValue (*bind)(const SubmissionRecord& record) = nullptr;
  // Reads the column's text (nullopt: NULL) into `record`. Called in the table's order, so a
  // column may rely on those before it (the idempotency tag's three).
  void (*read)(SubmissionRecord& record, const std::optional<std::string>& text) = nullptr;
};

inline constexpr std::size_t kRecordColumnCount = 23;
extern const std::array<RecordColumn, kRecordColumnCount> kRecordColumns;

// "id, time_ms, …": every column, in the table's order.
const std::string& select_list();
// The same with '' in place of the columns the list leaves out.
const std::string& list_select_list();
// The same with the body read too, and '' for the answer alone (the larger of the two).
const std::string& body_select_list();
// "(id, time_ms, …)": the INSERT's column list.
const std::string& insert_list();

// The names in the mistakes column's text (space-separated; NULL or '' for none).
std::vector<std::string> mistakes(const std::optional<std::string>& text);

// The record's values, one a column, in the table's order.
std::vector<SqlValue> binds(const SubmissionRecord& record);
// The record whose columns (select_list(), in order) start at `first` of `row`.
SubmissionRecord record(const SqlRow& row, std::size_t first = 0);

}  // namespace headgrader::store::columns

// The LTI tables' columns as tables, as record_columns.h is the submissions': the passback
// outbox's (read back by a claim and by the list) and the student tokens' (written and read).
// Each SELECT list, the token INSERT with its binds and each row decoder are made from them,
// so a row is never decoded by a position written in another place.
// Thread-safety: constants and pure functions.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "passback_outbox.h"
#include "sql_connection.h"
#include "student_tokens.h"

namespace headgrader::store::columns {

// One column of a table whose rows are T: its name, how a T's field is bound to it (null for a
// column only read) and how a row's text (nullopt: NULL) is read back into a T.
template <class T>
struct Column {
  std::string_view name;
  SqlValue (*bind)(const T& row) = nullptr;
  void (*read)(T& row, const std::optional<std::string>& text) = nullptr;
};

extern const std::array<Column<PassbackItem>, 12> kPassbackColumns;
extern const std::array<Column<StudentToken>, 10> kStudentTokenColumns;

// "id, submission_id, …": the passback columns, in the table's order.
const std::string& passback_select_list();
PassbackItem passback_item(const SqlRow& row);

// "token_sha256, student, …" and "$1, $2, …" for the student tokens' columns.
const std::string& student_token_select_list();
const std::string& student_token_placeholders();
std::vector<SqlValue> student_token_binds(const StudentToken& token);
StudentToken student_token(const SqlRow& row);

}  // namespace headgrader::store::columns

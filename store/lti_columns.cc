#include "lti_columns.h"

#include "sql_rows.h"

namespace headgrader::store::columns {
namespace {

using Text = std::optional<std::string>;

template <class T, std::size_t N>
std::string names_of(const std::array<Column<T>, N>& table) {
  std::string list;
  for (const Column<T>& column : table) {
    list += (list.empty() ? "" : ", ") + std::string(column.name);
  }
  return list;
}

template <class T, std::size_t N>
T decoded(const std::array<Column<T>, N>& table, const SqlRow& row) {
  T out;
  for (std::size_t i = 0; i < N; ++i) table[i].read(out, row[i]);
  return out;
}

}  // namespace

const std::array<Column<PassbackItem>, 12> kPassbackColumns = {{
    {"id", nullptr, [](PassbackItem& p, const Text& t) { p.id = t.value_or(""); }},
    {"submission_id", nullptr,
     [](PassbackItem& p, const Text& t) { p.submission_id = t.value_or(""); }},
    {"issuer", nullptr, [](PassbackItem& p, const Text& t) { p.request.issuer = t.value_or(""); }},
    {"client_id", nullptr,
     [](PassbackItem& p, const Text& t) { p.request.client_id = t.value_or(""); }},
    {"lineitem", nullptr,
     [](PassbackItem& p, const Text& t) { p.request.lineitem = t.value_or(""); }},
    {"payload", nullptr,
     [](PassbackItem& p, const Text& t) { p.request.payload = t.value_or(""); }},
    {"status", nullptr,
     [](PassbackItem& p, const Text& t) {
       p.status = parse_passback_status(t.value_or("")).value_or(PassbackStatus::kPending);
     }},
    {"attempts", nullptr,
     [](PassbackItem& p, const Text& t) { p.attempts = static_cast<int>(rows::integer(t)); }},
    {"last_status", nullptr,
     [](PassbackItem& p, const Text& t) {
       if (t) p.last_status = static_cast<int>(rows::integer(t));
     }},
    {"last_error", nullptr, [](PassbackItem& p, const Text& t) { p.last_error = t.value_or(""); }},
    {"next_attempt_ms", nullptr,
     [](PassbackItem& p, const Text& t) { p.next_attempt = rows::integer(t); }},
    {"created_ms", nullptr, [](PassbackItem& p, const Text& t) { p.created = rows::integer(t); }},
}};

const std::array<Column<StudentToken>, 10> kStudentTokenColumns = {{
    {"token_sha256", [](const StudentToken& s) -> SqlValue { return s.token_sha256; },
     [](StudentToken& s, const Text& t) { s.token_sha256 = t.value_or(""); }},
    {"student", [](const StudentToken& s) -> SqlValue { return s.student; },
     [](StudentToken& s, const Text& t) { s.student = t.value_or(""); }},
    {"problem", [](const StudentToken& s) -> SqlValue { return s.problem; },
     [](StudentToken& s, const Text& t) { s.problem = t.value_or(""); }},
    {"issuer", [](const StudentToken& s) -> SqlValue { return s.issuer; },
     [](StudentToken& s, const Text& t) { s.issuer = t.value_or(""); }},
    {"client_id", [](const StudentToken& s) -> SqlValue { return s.client_id; },
     [](StudentToken& s, const Text& t) { s.client_id = t.value_or(""); }},
    {"context", [](const StudentToken& s) { return sql_text(s.context); },
     [](StudentToken& s, const Text& t) { s.context = t; }},
    {"resource_link", [](const StudentToken& s) { return sql_text(s.resource_link); },
     [](StudentToken& s, const Text& t) { s.resource_link = t; }},
    {"lineitem", [](const StudentToken& s) { return sql_text(s.lineitem); },
     [](StudentToken& s, const Text& t) { s.lineitem = t; }},
    {"expires_ms", [](const StudentToken& s) -> SqlValue { return s.expires; },
     [](StudentToken& s, const Text& t) { s.expires = rows::integer(t); }},
    {"details", [](const StudentToken& s) -> SqlValue { return s.details; },
     [](StudentToken& s, const Text& t) { s.details = t.value_or(""); }},
}};

const std::string& passback_select_list() {
  static const std::string list = names_of(kPassbackColumns);
  return list;
}

PassbackItem passback_item(const SqlRow& row) { return decoded(kPassbackColumns, row); }

const std::string& student_token_select_list() {
  static const std::string list = names_of(kStudentTokenColumns);
  return list;
}

const std::string& student_token_placeholders() {
  static const std::string list = [] {
    std::string text;
    for (std::size_t i = 1; i <= kStudentTokenColumns.size(); ++i) {
      text += (i == 1 ? "$" : ", $") + std::to_string(i);
    }
    return text;
  }();
  return list;
}

std::vector<SqlValue> student_token_binds(const StudentToken& token) {
  std::vector<SqlValue> binds;
  for (const auto& column : kStudentTokenColumns) binds.push_back(column.bind(token));
  return binds;
}

StudentToken student_token(const SqlRow& row) { return decoded(kStudentTokenColumns, row); }

}  // namespace headgrader::store::columns

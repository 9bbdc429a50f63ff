#include "student_data.h"

#include <charconv>
#include <string>
#include <utility>

#include "common/json.h"
#include "common/limits.h"
#include "common/rfc3339.h"
#include "common/secrets.h"
#include "common/url_encoding.h"
#include "staff_answer_parts.h"
#include "staff_routes.h"

namespace headgrader::server {
namespace {

Response bad_parameter_answer(std::string name, std::string message, unsigned version,
                              bool keep_alive) {
  return error_response(bad_parameter(std::move(name), std::move(message)), version, keep_alive);
}

}  // namespace

Response delete_student_data(store::SubmissionStore& store, std::string_view student,
                             std::string_view key_name, unsigned version, bool keep_alive) {
  store::AuditEntry audit;
  audit.at = store::now_ms();
  audit.id = store::new_submission_id(audit.at);
  audit.key = std::string(key_name);
  audit.student_sha256 = sha256_hex(student);
  Result<std::int64_t> deleted = store.delete_student(student, std::move(audit));
  if (!deleted) return record_unavailable(deleted.error(), version, keep_alive);
  return json_response(http::status::ok, Json{{"deleted", *deleted}}.dump(), version, keep_alive);
}

Response list_audit(store::SubmissionStore& store, std::string_view query, unsigned version,
                    bool keep_alive) {
  int limit = limits::kDefaultListLimit;
  std::string cursor;
  const auto pairs = form_pairs(query);
  if (!pairs) {
    return bad_parameter_answer("",
                                "the query string is not valid: each '%' must be followed by two "
                                "hexadecimal digits",
                                version, keep_alive);
  }
  bool limit_seen = false, cursor_seen = false;
  for (const auto& [name, value] : *pairs) {
    bool& seen = name == "limit" ? limit_seen : cursor_seen;
    if (name != "limit" && name != "cursor") {
      return bad_parameter_answer(
          name, "unknown parameter \"" + name + "\"; the parameters are limit and cursor", version,
          keep_alive);
    }
    if (seen)
      return bad_parameter_answer(name, name + " is given twice; give it once", version,
                                  keep_alive);
    seen = true;
    if (value.empty()) continue;
    if (name == "cursor") {
      cursor = value;
      continue;
    }
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), limit);
    if (ec != std::errc() || end != value.data() + value.size() || limit < 1 ||
        limit > limits::kMaxListLimit) {
      return bad_parameter_answer("limit",
                                  "limit must be a whole number from 1 to " +
                                      std::to_string(limits::kMaxListLimit) + "; it is \"" + value +
                                      "\"",
                                  version, keep_alive);
    }
  }
  Result<store::AuditPage> page = store.list_audit(limit, cursor);
  if (!page) {
    if (page.error().code != ErrorCode::kStoreUnavailable) {
      return error_response(page.error(), version, keep_alive);
    }
    return record_unavailable(page.error(), version, keep_alive);
  }
  Json entries = Json::array();
  for (const store::AuditEntry& entry : page->entries) {
    entries.push_back(Json{{"at", format_rfc3339_ms(entry.at)},
                           {"key", entry.key},
                           {"student_sha256", entry.student_sha256},
                           {"deleted", entry.deleted}});
  }
  return json_response(
      http::status::ok,
      Json{{"entries", std::move(entries)},
           {"next_cursor", page->next_cursor ? Json(*page->next_cursor) : Json(nullptr)}}
          .dump(-1, ' ', false, Json::error_handler_t::replace),
      version, keep_alive);
}

}  // namespace headgrader::server

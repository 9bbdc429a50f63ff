// The pieces the staff routes' answers share (staff_routes.cc, regrade_route.cc): a query
// parameter's bad_request, a text that may be absent as JSON, and an answer's compact text.
// Private to server/routes; one definition here, so that no two files of the target (one
// translation unit in a unity build) define them twice.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "common/json.h"
#include "common/result.h"

namespace headgrader::server {

// bad_request naming the parameter `name` as field ("" for the query string as a whole).
inline Error bad_parameter(std::string name, std::string message) {
  return Error{ErrorCode::kBadRequest, std::move(message), std::move(name)};
}

// The text, or null when there is none.
inline Json nullable(const std::optional<std::string>& text) {
  return text ? Json(*text) : Json(nullptr);
}

// Compact JSON; a text as stored may hold any bytes, so invalid UTF-8 is replaced, never thrown.
inline std::string dump(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace headgrader::server

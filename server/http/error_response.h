// Every HTTP response of the service is built here: JSON bodies, the contract's error body
// {"error": {"code", "message", "field"}}, and the one table that maps an error code (the
// engine's or the HTTP layer's, common/error_code.h) to a status. Nothing else chooses a
// status for an error. Thread-safety: pure functions.
#pragma once

#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "headgrader/result.h"

namespace headgrader::server {

namespace http = boost::beast::http;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

// The status for an error code (400 for the body errors, 401, 403, 404, 405, 409, 413, 415,
// 422, 429, 431, 503); internal_error, and a code never meant for a client, is 500.
http::status status_for(ErrorCode code);

// {"error": {"code": …, "message": …, "field": … or null}} as compact JSON.
std::string error_body(const Error& error);

// A response with Content-Type: application/json and `body`, for an HTTP/1.x request of
// `version` (10 or 11) that wants the connection kept open or not.
Response json_response(http::status status, std::string body, unsigned version, bool keep_alive);

// json_response(status_for(error.code), error_body(error), …).
Response error_response(const Error& error, unsigned version, bool keep_alive);

// The same, as the answer to `request` (its version and keep-alive).
Response json_answer(const Request& request, http::status status, std::string body);
Response error_answer(const Request& request, const Error& error);
// The same with more members after "error", which tell the sender what to fix (a problem
// file's "defects": API.md §9). `beside` is a headgrader::Json (headgrader/report.h).
Response error_answer(const Request& request, const Error& error,
                      const nlohmann::ordered_json& beside);

}  // namespace headgrader::server

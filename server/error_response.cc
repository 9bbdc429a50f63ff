#include "error_response.h"

#include <array>
#include <utility>

#include "headgrader/report.h"

namespace headgrader::server {
namespace {

struct CodeStatus {
  std::string_view code;
  http::status status;
};

// The one table. Body errors are the client's to fix (400); the rest are HTTP-level.
constexpr std::array kStatusOfCode = {
    CodeStatus{error_code::kInvalidJson, http::status::bad_request},
    CodeStatus{error_code::kTooDeep, http::status::bad_request},
    CodeStatus{error_code::kNotAnObject, http::status::bad_request},
    CodeStatus{error_code::kMissingField, http::status::bad_request},
    CodeStatus{error_code::kUnknownField, http::status::bad_request},
    CodeStatus{error_code::kDuplicateField, http::status::bad_request},
    CodeStatus{error_code::kWrongType, http::status::bad_request},
    CodeStatus{error_code::kWrongShape, http::status::bad_request},
    CodeStatus{error_code::kOutOfRange, http::status::bad_request},
    CodeStatus{error_code::kBadRequest, http::status::bad_request},
    CodeStatus{error_code::kNotFound, http::status::not_found},
    CodeStatus{error_code::kMethodNotAllowed, http::status::method_not_allowed},
    CodeStatus{error_code::kBodyTooLarge, http::status::payload_too_large},
    CodeStatus{error_code::kUnsupportedMediaType, http::status::unsupported_media_type},
    CodeStatus{error_code::kHeaderTooLarge, http::status::request_header_fields_too_large},
    CodeStatus{error_code::kTooManyConnections, http::status::service_unavailable},
    CodeStatus{error_code::kShuttingDown, http::status::service_unavailable},
    CodeStatus{error_code::kUnauthorized, http::status::unauthorized},
    CodeStatus{error_code::kForbidden, http::status::forbidden},
    CodeStatus{error_code::kStaffDisabled, http::status::forbidden},
    CodeStatus{error_code::kStoreUnavailable, http::status::service_unavailable},
    CodeStatus{error_code::kIdempotencyConflict, http::status::conflict},
    CodeStatus{error_code::kRateLimited, http::status::too_many_requests},
    CodeStatus{error_code::kInvalidProblem, http::status::unprocessable_entity},
    CodeStatus{error_code::kProblemsReadOnly, http::status::conflict},
    CodeStatus{error_code::kInternalError, http::status::internal_server_error},
};

}  // namespace

http::status status_for(std::string_view code) {
  for (const CodeStatus& entry : kStatusOfCode) {
    if (entry.code == code) return entry.status;
  }
  return http::status::internal_server_error;
}

std::string error_body(const Error& error) {
  // A field as sent may hold any bytes; never let a bad one turn an error into a crash.
  return error_to_json(error).dump(-1, ' ', false, Json::error_handler_t::replace);
}

Response json_response(http::status status, std::string body, unsigned version, bool keep_alive) {
  Response response{status, version};
  response.set(http::field::server, "headgrader");
  response.set(http::field::content_type, "application/json");
  response.keep_alive(keep_alive);
  response.body() = std::move(body);
  response.prepare_payload();
  return response;
}

Response error_response(const Error& error, unsigned version, bool keep_alive) {
  Response response = json_response(status_for(error.code), error_body(error), version, keep_alive);
  if (error.code == error_code::kUnauthorized)
    response.set(http::field::www_authenticate, "Bearer");
  return response;
}

Response json_answer(const Request& request, http::status status, std::string body) {
  return json_response(status, std::move(body), request.version(), request.keep_alive());
}

Response error_answer(const Request& request, const Error& error) {
  return error_response(error, request.version(), request.keep_alive());
}

}  // namespace headgrader::server

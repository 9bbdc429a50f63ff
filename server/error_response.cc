#include "error_response.h"

#include <array>
#include <utility>

#include "headgrader/report.h"

namespace headgrader::server {
namespace {

struct CodeStatus {
  ErrorCode code;
  http::status status;
};

// The one table. Body errors are the client's to fix (400); the rest are HTTP-level.
constexpr std::array kStatusOfCode = {
    CodeStatus{ErrorCode::kInvalidJson, http::status::bad_request},
    CodeStatus{ErrorCode::kTooDeep, http::status::bad_request},
    CodeStatus{ErrorCode::kNotAnObject, http::status::bad_request},
    CodeStatus{ErrorCode::kMissingField, http::status::bad_request},
    CodeStatus{ErrorCode::kUnknownField, http::status::bad_request},
    CodeStatus{ErrorCode::kDuplicateField, http::status::bad_request},
    CodeStatus{ErrorCode::kWrongType, http::status::bad_request},
    CodeStatus{ErrorCode::kWrongShape, http::status::bad_request},
    CodeStatus{ErrorCode::kOutOfRange, http::status::bad_request},
    CodeStatus{ErrorCode::kBadRequest, http::status::bad_request},
    CodeStatus{ErrorCode::kNotFound, http::status::not_found},
    CodeStatus{ErrorCode::kMethodNotAllowed, http::status::method_not_allowed},
    CodeStatus{ErrorCode::kBodyTooLarge, http::status::payload_too_large},
    CodeStatus{ErrorCode::kUnsupportedMediaType, http::status::unsupported_media_type},
    CodeStatus{ErrorCode::kHeaderTooLarge, http::status::request_header_fields_too_large},
    CodeStatus{ErrorCode::kTooManyConnections, http::status::service_unavailable},
    CodeStatus{ErrorCode::kShuttingDown, http::status::service_unavailable},
    CodeStatus{ErrorCode::kUnauthorized, http::status::unauthorized},
    CodeStatus{ErrorCode::kForbidden, http::status::forbidden},
    CodeStatus{ErrorCode::kStaffDisabled, http::status::forbidden},
    CodeStatus{ErrorCode::kStoreUnavailable, http::status::service_unavailable},
    CodeStatus{ErrorCode::kIdempotencyConflict, http::status::conflict},
    CodeStatus{ErrorCode::kRateLimited, http::status::too_many_requests},
    CodeStatus{ErrorCode::kInvalidProblem, http::status::unprocessable_entity},
    CodeStatus{ErrorCode::kProblemsReadOnly, http::status::conflict},
    CodeStatus{ErrorCode::kInternalError, http::status::internal_server_error},
};

}  // namespace

http::status status_for(ErrorCode code) {
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
  if (error.code == ErrorCode::kUnauthorized) response.set(http::field::www_authenticate, "Bearer");
  return response;
}

Response json_answer(const Request& request, http::status status, std::string body) {
  return json_response(status, std::move(body), request.version(), request.keep_alive());
}

Response error_answer(const Request& request, const Error& error) {
  return error_response(error, request.version(), request.keep_alive());
}

}  // namespace headgrader::server

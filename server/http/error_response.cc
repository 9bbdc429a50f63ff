#include "error_response.h"

#include <utility>

#include "headgrader/report.h"

namespace headgrader::server {

http::status status_for(ErrorCode code) {
  // The one table. No default: -Wswitch names a code added without its status. Body errors
  // are the client's to fix (400); the rest are HTTP-level.
  switch (code) {
    case ErrorCode::kInvalidJson:
    case ErrorCode::kTooDeep:
    case ErrorCode::kNotAnObject:
    case ErrorCode::kMissingField:
    case ErrorCode::kUnknownField:
    case ErrorCode::kDuplicateField:
    case ErrorCode::kWrongType:
    case ErrorCode::kWrongShape:
    case ErrorCode::kOutOfRange:
    case ErrorCode::kBadRequest:
      return http::status::bad_request;
    case ErrorCode::kNotFound:
      return http::status::not_found;
    case ErrorCode::kMethodNotAllowed:
      return http::status::method_not_allowed;
    case ErrorCode::kBodyTooLarge:
      return http::status::payload_too_large;
    case ErrorCode::kUnsupportedMediaType:
      return http::status::unsupported_media_type;
    case ErrorCode::kHeaderTooLarge:
      return http::status::request_header_fields_too_large;
    case ErrorCode::kTooManyConnections:
    case ErrorCode::kStoreUnavailable:
      return http::status::service_unavailable;
    case ErrorCode::kUnauthorized:
      return http::status::unauthorized;
    case ErrorCode::kForbidden:
    case ErrorCode::kStaffDisabled:
      return http::status::forbidden;
    case ErrorCode::kIdempotencyConflict:
    case ErrorCode::kProblemsReadOnly:
    case ErrorCode::kProblemInPool:
      return http::status::conflict;
    case ErrorCode::kRateLimited:
      return http::status::too_many_requests;
    case ErrorCode::kInvalidProblem:
      return http::status::unprocessable_entity;
    case ErrorCode::kInternalError:
    // Never meant for a client (common/error_code.h): one in an answer is our bug.
    case ErrorCode::kUsage:
    case ErrorCode::kKeysFile:
    case ErrorCode::kListenFailed:
    case ErrorCode::kTlsConfig:
    case ErrorCode::kInvalidLtiConfig:
    case ErrorCode::kInvalidKey:
    case ErrorCode::kFetchFailed:
    case ErrorCode::kTokenRefused:
      return http::status::internal_server_error;
  }
  // Only a cast makes a value that is no enumerator.
  return http::status::internal_server_error;
}

namespace {

// A field as sent may hold any bytes; never let a bad one turn an error into a crash.
std::string dumped(const Json& body) {
  return body.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::string error_body(const Error& error) { return dumped(error_to_json(error)); }

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

Response error_answer(const Request& request, const Error& error,
                      const nlohmann::ordered_json& beside) {
  Json body = error_to_json(error);
  for (const auto& [name, value] : beside.items()) body[name] = value;
  Response response =
      json_response(status_for(error.code), dumped(body), request.version(), request.keep_alive());
  if (error.code == ErrorCode::kUnauthorized) response.set(http::field::www_authenticate, "Bearer");
  return response;
}

}  // namespace headgrader::server

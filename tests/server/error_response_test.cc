// The one table of error codes and statuses, the error body of API.md §5 and which content
// types count as JSON: every code once, written from the contract, against server/
// error_response.cc.
#include "error_response.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "router.h"

namespace headgrader::server {
namespace {

// Every error code, written from API.md (§5, §7–§11) and docs/http.md's table of codes, not
// from common/error_code.h: its name in the error body and its status. In the enum's
// order, so that a code added there and not here fails the test.
struct ErrorCodeCase {
  ErrorCode code;
  const char* name;
  http::status status;
};
constexpr ErrorCodeCase kEveryErrorCode[] = {
    {ErrorCode::kInvalidJson, "invalid_json", http::status::bad_request},
    {ErrorCode::kTooDeep, "too_deep", http::status::bad_request},
    {ErrorCode::kNotAnObject, "not_an_object", http::status::bad_request},
    {ErrorCode::kMissingField, "missing_field", http::status::bad_request},
    {ErrorCode::kUnknownField, "unknown_field", http::status::bad_request},
    {ErrorCode::kDuplicateField, "duplicate_field", http::status::bad_request},
    {ErrorCode::kWrongType, "wrong_type", http::status::bad_request},
    {ErrorCode::kWrongShape, "wrong_shape", http::status::bad_request},
    {ErrorCode::kOutOfRange, "out_of_range", http::status::bad_request},
    {ErrorCode::kNotFound, "not_found", http::status::not_found},
    {ErrorCode::kMethodNotAllowed, "method_not_allowed", http::status::method_not_allowed},
    {ErrorCode::kBodyTooLarge, "body_too_large", http::status::payload_too_large},
    {ErrorCode::kUnsupportedMediaType, "unsupported_media_type",
     http::status::unsupported_media_type},
    {ErrorCode::kHeaderTooLarge, "header_too_large", http::status::request_header_fields_too_large},
    {ErrorCode::kBadRequest, "bad_request", http::status::bad_request},
    {ErrorCode::kTooManyConnections, "too_many_connections", http::status::service_unavailable},
    {ErrorCode::kUnauthorized, "unauthorized", http::status::unauthorized},
    {ErrorCode::kForbidden, "forbidden", http::status::forbidden},
    {ErrorCode::kStaffDisabled, "staff_disabled", http::status::forbidden},
    {ErrorCode::kStoreUnavailable, "store_unavailable", http::status::service_unavailable},
    {ErrorCode::kIdempotencyConflict, "idempotency_conflict", http::status::conflict},
    {ErrorCode::kRateLimited, "rate_limited", http::status::too_many_requests},
    {ErrorCode::kInvalidProblem, "invalid_problem", http::status::unprocessable_entity},
    {ErrorCode::kProblemsReadOnly, "problems_read_only", http::status::conflict},
    {ErrorCode::kProblemInPool, "problem_in_pool", http::status::conflict},
    {ErrorCode::kInternalError, "internal_error", http::status::internal_server_error},
    // Never meant for a client (startup, the command line, our calls to a platform): 500, as
    // any code the table did not know was before it was a switch.
    {ErrorCode::kUsage, "usage", http::status::internal_server_error},
    {ErrorCode::kKeysFile, "keys_file", http::status::internal_server_error},
    {ErrorCode::kListenFailed, "listen_failed", http::status::internal_server_error},
    {ErrorCode::kTlsConfig, "tls_config", http::status::internal_server_error},
    {ErrorCode::kInvalidLtiConfig, "invalid_lti_config", http::status::internal_server_error},
    {ErrorCode::kInvalidKey, "invalid_key", http::status::internal_server_error},
    {ErrorCode::kFetchFailed, "fetch_failed", http::status::internal_server_error},
    {ErrorCode::kTokenRefused, "token_refused", http::status::internal_server_error},
};

TEST(ErrorResponse, EveryCodeHasItsOwnNameAndItsStatusInTheAnswer) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < std::size(kEveryErrorCode); ++i) {
    const ErrorCodeCase& c = kEveryErrorCode[i];
    SCOPED_TRACE(c.name);
    // Listed once each, in the enum's order: the list covers every enumerator up to its last.
    EXPECT_EQ(static_cast<std::size_t>(c.code), i);
    EXPECT_TRUE(names.insert(c.name).second) << "a second code named " << c.name;
    EXPECT_EQ(code_name(c.code), c.name);
    EXPECT_EQ(status_for(c.code), c.status);
    const Response response = error_response({c.code, "the message", ""}, 11, true);
    EXPECT_EQ(response.result(), c.status);
    EXPECT_EQ(response.body(), std::string(R"({"error":{"code":")") + c.name +
                                   R"(","message":"the message","field":null}})");
    EXPECT_EQ(response.count(http::field::www_authenticate) == 1,
              c.code == ErrorCode::kUnauthorized);
  }
  // Nothing past the last: a value after it is no code, so its name is the fallback's.
  EXPECT_EQ(code_name(static_cast<ErrorCode>(std::size(kEveryErrorCode))), "internal_error");
  EXPECT_EQ(status_for(static_cast<ErrorCode>(std::size(kEveryErrorCode))),
            http::status::internal_server_error);
}

TEST(ErrorResponse, BodyHasCodeMessageAndFieldOrNull) {
  EXPECT_EQ(
      error_body({ErrorCode::kWrongShape, "W_q must have 2 columns", "W_q"}),
      R"({"error":{"code":"wrong_shape","message":"W_q must have 2 columns","field":"W_q"}})");
  EXPECT_EQ(error_body({ErrorCode::kNotFound, "no such path", ""}),
            R"({"error":{"code":"not_found","message":"no such path","field":null}})");
}

TEST(ErrorResponse, MembersBesideTheErrorComeAfterItAndTheStatusIsTheCodes) {
  Request request{http::verb::put, "/v1/problems/x", 10};
  const Response response =
      error_answer(request, {ErrorCode::kInvalidProblem, "fix it", ""},
                   Json{{"defects", Json::array({{{"field", "id"}, {"message", "m"}}})}});
  EXPECT_EQ(response.result(), http::status::unprocessable_entity);
  EXPECT_EQ(response.version(), 10u);
  EXPECT_EQ(response.body(),
            R"({"error":{"code":"invalid_problem","message":"fix it","field":null},)"
            R"("defects":[{"field":"id","message":"m"}]})");
}

TEST(ContentType, IsJsonOnlyForApplicationJson) {
  EXPECT_TRUE(is_json_content_type("application/json"));
  EXPECT_TRUE(is_json_content_type("application/json; charset=utf-8"));
  EXPECT_TRUE(is_json_content_type("APPLICATION/Json;charset=UTF-8"));
  EXPECT_TRUE(is_json_content_type(" application/json "));
  EXPECT_FALSE(is_json_content_type(""));
  EXPECT_FALSE(is_json_content_type("application/jso"));
  EXPECT_FALSE(is_json_content_type("application/json-seq"));
  EXPECT_FALSE(is_json_content_type("text/json"));
  EXPECT_FALSE(is_json_content_type("application/problem+json"));
}

}  // namespace
}  // namespace headgrader::server

// Hostile and malformed requests, as raw bytes over a socket, against the real server binary:
// broken JSON, wrong types, ragged and empty matrices, non-finite and huge numbers, deep
// nesting, oversized bodies and headers, unknown and duplicate keys, path traversal (also
// percent-encoded), invalid UTF-8, NUL bytes, wrong methods and content types, bad framing.
// Each row pins the status and the error code; after each row the server still serves.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "headgrader/limits.h"
#include "headgrader/report.h"
#include "server_harness.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::kGradePath;

using namespace harness;

// A POST with Content-Length framing.
std::string post(const std::string& body, const std::string& content_type = "application/json",
                 const std::string& target = kGradePath) {
  std::string request = "POST " + target + " HTTP/1.1\r\nHost: x\r\n";
  if (!content_type.empty()) request += "Content-Type: " + content_type + "\r\n";
  request += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  return request;
}

std::string request(const std::string& method, const std::string& target) {
  return method + " " + target + " HTTP/1.1\r\nHost: x\r\n\r\n";
}

// The handout's solution with `key` set to `value` (added when it is not there).
std::string with(const std::string& key, const std::string& value) {
  std::string body = R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]])";
  const std::string quoted = "\"" + key + "\": ";
  if (const auto at = body.find(quoted); at != std::string::npos) {
    const auto end = body.find("]]", at) + 2;
    body.replace(at, end - at, quoted + value);
  } else {
    body += ", " + quoted + value;
  }
  return body + "}";
}

std::string deep(std::size_t depth, const std::string& open, const std::string& close) {
  std::string text;
  text.reserve(depth * (open.size() + close.size()));
  for (std::size_t i = 0; i < depth; ++i) text += open;
  for (std::size_t i = 0; i < depth; ++i) text += close;
  return text;
}

std::string rows(int count) {
  std::string text = "[[1, 1]";
  for (int r = 1; r < count; ++r) text += ", [1, 1]";
  return text + "]";
}

std::string chunked_over_limit() {
  std::string text = "POST " + kGradePath +
                     " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 17; ++i) text += "10000\r\n" + std::string(0x10000, ' ') + "\r\n";
  return text + "0\r\n\r\n";
}

struct Row {
  std::string name;
  std::string bytes;
  unsigned status;
  std::string code;
  std::string field;  // expected "field"; empty: null
};

std::vector<Row> table() {
  using namespace std::string_literals;
  const std::string json = "application/json";
  return {
      // --- Broken JSON
      {"unclosed object", post("{nope"), 400, "invalid_json", ""},
      {"empty body", post(""), 400, "invalid_json", ""},
      {"truncated", post(R"({"W_q": [[1, 1]])"), 400, "invalid_json", ""},
      {"trailing comma", post(with("W_q", "[[1, 1],]")), 400, "invalid_json", ""},
      {"single quotes", post("{'W_q': [[1, 1]]}"), 400, "invalid_json", ""},
      {"two documents", post(with("W_q", "[[1, 1]]") + " {}"), 400, "invalid_json", ""},
      {"comment", post("/* hi */" + with("W_q", "[[1, 1]]")), 400, "invalid_json", ""},
      {"array body", post("[[1, 1]]"), 400, "not_an_object", ""},
      {"null body", post("null"), 400, "not_an_object", ""},
      {"string body", post(R"("W_q")"), 400, "not_an_object", ""},
      // --- Wrong types
      {"matrix as string", post(with("W_q", R"("[[1, 1]]")")), 400, "wrong_type", "W_q"},
      {"matrix as object", post(with("W_q", R"({"row": [1, 1]})")), 400, "wrong_type", "W_q"},
      {"matrix as null", post(with("W_k", "null")), 400, "wrong_type", "W_k"},
      {"row not an array", post(with("W_q", "[1, 1]")), 400, "wrong_type", "W_q"},
      {"entry a string", post(with("W_k", R"([[0, "5"]])")), 400, "wrong_type", "W_k"},
      {"entry a bool", post(with("W_k", "[[0, true]]")), 400, "wrong_type", "W_k"},
      {"max_failures a string", post(with("max_failures", R"("3")")), 400, "wrong_type",
       "max_failures"},
      {"max_failures 101", post(with("max_failures", "101")), 400, "out_of_range", "max_failures"},
      {"max_failures -1", post(with("max_failures", "-1")), 400, "out_of_range", "max_failures"},
      {"student a number", post(with("student", "5")), 400, "wrong_type", "student"},
      // --- Ragged and empty matrices
      {"empty matrix", post(with("W_q", "[]")), 400, "wrong_shape", "W_q"},
      {"empty row", post(with("W_q", "[[]]")), 400, "wrong_shape", "W_q"},
      {"ragged rows", post(with("W_V", "[[1, 0], [0]]")), 400, "wrong_shape", "W_V"},
      {"three columns", post(with("W_q", "[[1, 1, 0]]")), 400, "wrong_shape", "W_q"},
      {"key rows differ", post(with("W_k", "[[0, 5], [0, 5]]")), 400, "wrong_shape", "W_k"},
      {"value rows", post(with("W_V", "[[1, 0], [0, 1], [0, 0]]")), 400, "wrong_shape", "W_V"},
      {"65 rows",
       post(R"({"W_q": )" + rows(65) + R"(, "W_k": )" + rows(65) + R"(, "W_V": [[1, 0], [0, 1]]})"),
       400, "out_of_range", "W_q"},
      // --- Non-finite and huge numbers
      {"1e400", post(with("W_k", "[[0, 1e400]]")), 400, "out_of_range", "W_k"},
      {"-1e400", post(with("W_k", "[[0, -1e400]]")), 400, "out_of_range", "W_k"},
      {"NaN literal", post(with("W_k", "[[0, NaN]]")), 400, "invalid_json", ""},
      {"Infinity literal", post(with("W_k", "[[0, Infinity]]")), 400, "invalid_json", ""},
      {"over a million", post(with("W_k", "[[0, 1000001]]")), 400, "out_of_range", "W_k"},
      {"30-digit integer", post(with("W_k", "[[0, 123456789012345678901234567890]]")), 400,
       "out_of_range", "W_k"},
      {"uint64 overflow", post(with("W_k", "[[0, -18446744073709551617]]")), 400, "out_of_range",
       "W_k"},
      // --- Deep nesting
      {"100000-deep arrays", post(deep(100000, "[", "]")), 400, "too_deep", ""},
      {"100000-deep in a field", post(R"({"W_q": )" + deep(100000, "[", "]") + "}"), 400,
       "too_deep", "W_q"},
      {"100000-deep objects", post(deep(100000, R"({"a":)", "}")), 400, "too_deep", "a"},
      // --- Oversized
      {"body over 1 MiB", post(std::string(limits::kMaxBodyBytes + 1, ' ')), 413, "body_too_large",
       ""},
      {"chunked body over 1 MiB", chunked_over_limit(), 413, "body_too_large", ""},
      {"header over 16 KiB",
       "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n", 431,
       "header_too_large", ""},
      {"target over 16 KiB", request("GET", "/v1/problems/" + std::string(20000, 'a')), 431,
       "header_too_large", ""},
      // --- Unknown and duplicate keys
      {"unknown key", post(with("W_o", "[[1]]")), 400, "unknown_field", "W_o"},
      {"key differing in case",
       post(R"({"w_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})"), 400, "unknown_field",
       "w_q"},
      {"duplicate key", post(with("W_V", "[[1, 0], [0, 1]], \"W_V\": [[1, 0], [0, 1]]")), 400,
       "duplicate_field", "W_V"},
      {"two spellings", post(with("W_Q", "[[1, 1]]")), 400, "duplicate_field", "W_Q"},
      {"missing matrix", post(R"({"W_q": [[1, 1]], "W_V": [[1, 0], [0, 1]]})"), 400,
       "missing_field", "W_k"},
      // --- Path traversal in problem ids
      {"dot-dot", request("GET", "/v1/problems/../../etc/passwd"), 404, "not_found", ""},
      {"percent-encoded dot-dot", request("GET", "/v1/problems/..%2F..%2Fetc%2Fpasswd"), 404,
       "not_found", ""},
      {"percent-encoded dots", request("GET", "/v1/problems/%2e%2e"), 404, "not_found", ""},
      {"dot-dot in grade",
       post(with("W_q", "[[1, 1]]"), json, "/v1/problems/..%2Fconsonant-anywhere/grade"), 404,
       "not_found", ""},
      {"absolute path", request("GET", "/v1/problems//etc/passwd"), 404, "not_found", ""},
      {"root dot-dot", request("GET", "/../../etc/passwd"), 404, "not_found", ""},
      {"encoded NUL in id", request("GET", "/v1/problems/consonant-anywhere%00"), 404, "not_found",
       ""},
      {"file name as id", request("GET", "/v1/problems/consonant-anywhere.json"), 404, "not_found",
       ""},
      {"id in upper case", request("GET", "/v1/problems/CONSONANT-ANYWHERE"), 404, "not_found", ""},
      {"absolute URI", request("GET", "http://evil/../../etc/passwd"), 404, "not_found", ""},
      // --- Invalid UTF-8 and NUL bytes
      {"invalid UTF-8 in a string", post(with("student", "\"\xff\xfe\"")), 400, "invalid_json", ""},
      {"invalid UTF-8 in a key", post("{\"W_\xc3\": [[1, 1]]}"), 400, "invalid_json", ""},
      {"overlong UTF-8", post(with("student", "\"\xc0\xaf\"")), 400, "invalid_json", ""},
      {"lone surrogate escape", post(with("student", R"("\ud800")")), 400, "invalid_json", ""},
      {"NUL after the object", post(with("W_q", "[[1, 1]]") + "\0junk"s), 400, "invalid_json", ""},
      {"NUL in a string", post("{\"student\": \"a\0b\"}"s), 400, "invalid_json", ""},
      {"NUL in the request line", "GET /heal\0thz HTTP/1.1\r\nHost: x\r\n\r\n"s, 400, "bad_request",
       ""},
      {"NUL in a header", "GET /healthz HTTP/1.1\r\nHost: x\0y\r\n\r\n"s, 400, "bad_request", ""},
      // Beast takes bytes over 0x7f in the target (obs-text); no problem has such an id.
      {"invalid UTF-8 in the path", request("GET", "/v1/problems/\xff\xfe"), 404, "not_found", ""},
      // --- Wrong methods and content types
      {"DELETE the list", request("DELETE", "/v1/problems"), 405, "method_not_allowed", ""},
      {"GET the grade route", request("GET", kGradePath), 405, "method_not_allowed", ""},
      {"PUT healthz", "PUT /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 405,
       "method_not_allowed", ""},
      {"POST the list", post("{}", json, "/v1/problems"), 405, "method_not_allowed", ""},
      {"unknown method", request("BREW", "/healthz"), 405, "method_not_allowed", ""},
      {"text/plain", post(with("W_q", "[[1, 1]]"), "text/plain"), 415, "unsupported_media_type",
       ""},
      {"no content type", post(with("W_q", "[[1, 1]]"), ""), 415, "unsupported_media_type", ""},
      {"application/jsonp", post(with("W_q", "[[1, 1]]"), "application/jsonp"), 415,
       "unsupported_media_type", ""},
      {"form encoded", post("W_q=1", "application/x-www-form-urlencoded"), 415,
       "unsupported_media_type", ""},
      // --- Bad HTTP framing
      {"header without colon", "GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", 400,
       "bad_request", ""},
      {"garbage request line", "GARBAGE\r\n\r\n", 400, "bad_request", ""},
      {"bad version", "GET /healthz HTTP/x.y\r\nHost: x\r\n\r\n", 400, "bad_request", ""},
      {"non-numeric length",
       "POST " + kGradePath +
           " HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n",
       400, "bad_request", ""},
      {"negative length",
       "POST " + kGradePath +
           " HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n",
       400, "bad_request", ""},
      {"two different lengths",
       "POST " + kGradePath +
           " HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
           "Content-Length: 3\r\n\r\n{}x",
       400, "bad_request", ""},
      {"length beyond 64 bits",
       "POST " + kGradePath +
           " HTTP/1.1\r\nContent-Type: application/json\r\n"
           "Content-Length: 99999999999999999999999\r\n\r\n{}",
       400, "bad_request", ""},
      {"bad chunk size",
       "POST " + kGradePath +
           " HTTP/1.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
           "zz\r\n{}\r\n0\r\n\r\n",
       400, "bad_request", ""},
      {"bare LF line ends", "GET /healthz HTTP/1.1\nHost: x\n\n", 400, "bad_request", ""},
  };
}

class BadInput : public SharedServerTest {};

TEST_F(BadInput, EveryRowGetsItsStatusAndCodeAndTheServerKeepsServing) {
  const std::vector<Row> rows = table();
  ASSERT_GE(rows.size(), 40u);
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    const std::optional<HttpResponse> response = exchange_raw(port_, row.bytes);
    ASSERT_TRUE(response.has_value())
        << "no answer; server stderr tail: " << server_->stderr_text().substr(0, 2000);
    EXPECT_EQ(response->result_int(), row.status) << response->body();
    EXPECT_EQ((*response)[http::field::content_type], "application/json");
    const Json body = Json::parse(response->body(), nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(body.is_object()) << response->body();
    const Json& error = body["error"];
    EXPECT_EQ(error["code"], row.code) << response->body();
    EXPECT_TRUE(error["message"].is_string());
    EXPECT_EQ(error["field"], row.field.empty() ? Json(nullptr) : Json(row.field));
    if (row.status == 405) {
      EXPECT_TRUE(response->count(http::field::allow)) << "Allow header";
    }

    const std::optional<HttpResponse> health = exchange_raw(port_, request("GET", "/healthz"));
    ASSERT_TRUE(health.has_value()) << "server stopped answering";
    EXPECT_EQ(health->result_int(), 200u);
  }
  // Still grading correctly after all of it.
  const std::optional<HttpResponse> graded = exchange_raw(port_, post(with("W_q", "[[1, 1]]")));
  ASSERT_TRUE(graded.has_value());
  EXPECT_EQ(graded->result_int(), 200u);
  EXPECT_EQ(Json::parse(graded->body())["passed"], true);
}

}  // namespace
}  // namespace headgrader::server

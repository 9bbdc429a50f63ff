#include "request_framing.h"

#include <iterator>
#include <string>
#include <string_view>

namespace headgrader::server {
namespace {

namespace http = boost::beast::http;

std::string_view trim(std::string_view text) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::size_t count(const http::request_header<>& header, http::field field) {
  const auto range = header.equal_range(field);
  return static_cast<std::size_t>(std::distance(range.first, range.second));
}

Error bad_request(std::string message) {
  return Error{ErrorCode::kBadRequest, std::move(message), ""};
}

}  // namespace

std::optional<Error> framing_error(const http::request_header<>& header) {
  const std::size_t hosts = count(header, http::field::host);
  if (header.version() >= 11 && hosts != 1) {
    return bad_request("an HTTP/1.1 request must have exactly one Host header; it has " +
                       std::to_string(hosts));
  }
  if (hosts > 1) {
    return bad_request("a request may have at most one Host header; it has " +
                       std::to_string(hosts));
  }
  const std::size_t lengths = count(header, http::field::content_length);
  if (lengths > 1) {
    return bad_request("a request may have at most one Content-Length header; it has " +
                       std::to_string(lengths));
  }
  const std::size_t codings = count(header, http::field::transfer_encoding);
  if (codings == 0) return std::nullopt;
  if (header.version() < 11) {
    return bad_request(
        "Transfer-Encoding is not allowed in an HTTP/1.0 request; send the body "
        "with Content-Length");
  }
  if (lengths > 0) {
    return bad_request(
        "a request may not have both Transfer-Encoding and Content-Length; send "
        "one of them");
  }
  if (codings > 1 ||
      !boost::beast::iequals(trim(header[http::field::transfer_encoding]), "chunked")) {
    return bad_request(
        "the only Transfer-Encoding accepted is \"chunked\" alone; send the body "
        "with Content-Length or chunked");
  }
  return std::nullopt;
}

void drop_trailer_fields(http::fields& fields, std::size_t header_fields) {
  auto it = fields.begin();
  for (std::size_t i = 0; i < header_fields && it != fields.end(); ++i) ++it;
  while (it != fields.end()) it = fields.erase(it);
}

}  // namespace headgrader::server

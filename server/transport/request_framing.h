// How a request's body is delimited (RFC 9112 §6.3) and whom it is for (§3.2), checked on
// its header before any of the body is read: exactly one Content-Length, or exactly
// `Transfer-Encoding: chunked` and no Content-Length, or neither (no body); on HTTP/1.1
// exactly one Host. Anything else could be framed differently by a proxy in front of us
// (a request smuggled inside another's body), so it is refused with 400 and the connection
// closed. Trailer fields of a chunked body are dropped, never read as headers (RFC 9110
// §6.5.1: a Content-Type there must not stand for the header's).
// Thread-safety: pure functions.
#pragma once

#include <boost/beast/http.hpp>
#include <cstddef>
#include <optional>

#include "headgrader/result.h"

namespace headgrader::server {

// bad_request naming what is wrong, or nullopt when the framing is sound.
std::optional<Error> framing_error(const boost::beast::http::request_header<>& header);

// Removes the fields after the first `header_fields` (those a chunked body's trailer added).
void drop_trailer_fields(boost::beast::http::fields& fields, std::size_t header_fields);

}  // namespace headgrader::server

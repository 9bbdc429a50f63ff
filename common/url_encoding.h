// Percent-encoding (RFC 3986 §2.1) and application/x-www-form-urlencoded: the one decoder of
// the service, for the LTI posts (login, launch, the token request), the queries of the staff
// routes and GET /lti/login, and each segment of a request's path; and the encoder of the URLs
// the tool builds. It lives here because LTI needed it first; the server links lti anyway.
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace headgrader {

using FormFields = std::map<std::string, std::string>;

// "%2D" is "-", and with `plus_is_space` (forms and queries, not paths) '+' is a space.
// Nullopt when a '%' is not followed by two hexadecimal digits.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space);

// "a=1&b=x%20y&a=2" -> [(a, 1), (b, "x y"), (a, 2)], in order, names given twice kept (for a
// caller that names the field given twice); empty pairs skipped. Nullopt on a bad '%' escape.
std::optional<std::vector<std::pair<std::string, std::string>>> form_pairs(std::string_view text);

// Every byte but RFC 3986's unreserved characters as %XX.
std::string percent_encode(std::string_view text);

// "a=1&b=x%20y" -> {a: 1, b: "x y"}; '+' is a space. Nullopt on a bad '%' escape or a name
// given twice (a second state or id_token would make the post ambiguous).
std::optional<FormFields> parse_form(std::string_view body);

// Fields encoded as a form body (ascending names).
std::string encode_form(const FormFields& fields);

// `url` with the fields appended as its query ('?' or '&' as it already has one).
std::string with_query(const std::string& url, const FormFields& fields);

}  // namespace headgrader

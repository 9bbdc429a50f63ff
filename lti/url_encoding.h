// application/x-www-form-urlencoded (the login and launch posts, the query of GET /lti/login,
// the token request) and percent-encoding for the URLs the tool builds.
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace headgrader::lti {

using FormFields = std::map<std::string, std::string>;

// Every byte but RFC 3986's unreserved characters as %XX.
std::string percent_encode(std::string_view text);

// "a=1&b=x%20y" -> {a: 1, b: "x y"}; '+' is a space. Nullopt on a bad '%' escape or a name
// given twice (a second state or id_token would make the post ambiguous).
std::optional<FormFields> parse_form(std::string_view body);

// Fields encoded as a form body (ascending names).
std::string encode_form(const FormFields& fields);

// `url` with the fields appended as its query ('?' or '&' as it already has one).
std::string with_query(const std::string& url, const FormFields& fields);

}  // namespace headgrader::lti

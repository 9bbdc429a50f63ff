// Percent-encoding and forms (common/url_encoding.h): the one decoder of paths, queries and
// the LTI posts, and the encoder of the URLs the tool builds.
#include "common/url_encoding.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace headgrader {
namespace {

TEST(Form, DecodesAndRefusesAmbiguity) {
  EXPECT_EQ(parse_form("a=1&b=x%20y+z&c="), (FormFields{{"a", "1"}, {"b", "x y z"}, {"c", ""}}));
  EXPECT_EQ(parse_form("state=1&state=2"), std::nullopt);
  EXPECT_EQ(parse_form("a=%zz"), std::nullopt);
  EXPECT_EQ(with_query("https://lms/auth?x=1", {{"a", "b c"}}), "https://lms/auth?x=1&a=b%20c");
}

// The one decoder of paths, queries and forms: '+' is a space in a form only (RFC 3986 keeps
// it in a path segment), and a '%' needs two hexadecimal digits after it.
TEST(Form, PercentDecodingTreatsPlusAsASpaceOnlyInForms) {
  EXPECT_EQ(percent_decode("first%2Dposition+x", false), "first-position+x");
  EXPECT_EQ(percent_decode("first%2dposition+x", true), "first-position x");
  EXPECT_EQ(percent_decode("a%2Fb", false), "a/b");
  EXPECT_EQ(percent_decode("100%", false), std::nullopt);
  EXPECT_EQ(percent_decode("%4", false), std::nullopt);
  EXPECT_EQ(percent_decode("%g0", true), std::nullopt);
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(form_pairs("a=1&&b&a=2"), (Pairs{{"a", "1"}, {"b", ""}, {"a", "2"}}));
  EXPECT_EQ(form_pairs("a=1&b=%"), std::nullopt);
}

}  // namespace
}  // namespace headgrader

// X-Request-Id's rules (API.md §17; server/http/request_id.h): which ids a client may send and
// have echoed, and the fresh ones the server makes for the rest.
#include "request_id.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "headgrader/limits.h"

namespace headgrader::server {
namespace {

TEST(RequestId, IdsOfLettersDigitsDotsUnderscoresAndHyphensUpTo128AreKept) {
  for (const std::string& id : {std::string("a"), std::string("3f2c-9A_b.1"),
                                std::string("123e4567-e89b-12d3-a456-426614174000"),
                                std::string(limits::kMaxRequestIdBytes, 'x')}) {
    EXPECT_TRUE(is_valid_request_id(id)) << id;
    EXPECT_EQ(request_id_for(id), id);
  }
}

TEST(RequestId, AnyOtherIdIsReplacedNotCleanedUp) {
  for (const std::string& id : {std::string(), std::string(limits::kMaxRequestIdBytes + 1, 'x'),
                                std::string("a b"), std::string("a\tb"),
                                std::string("a\x01"
                                            "b"),
                                std::string("a\"b"), std::string("a=b"), std::string("a/b"),
                                std::string("caf\xC3\xA9"), std::string("x\r\nSet-Cookie: y")}) {
    EXPECT_FALSE(is_valid_request_id(id)) << id;
    const std::string replaced = request_id_for(id);
    EXPECT_NE(replaced, id);
    EXPECT_EQ(replaced.size(), 32u) << replaced;
  }
}

TEST(RequestId, FreshIdsAre32LowercaseHexDigitsAndDiffer) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = new_request_id();
    ASSERT_EQ(id.size(), 32u);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
    EXPECT_TRUE(is_valid_request_id(id));
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

}  // namespace
}  // namespace headgrader::server

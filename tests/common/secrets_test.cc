// The secrets module (common/secrets.h): digests against published test vectors, random
// tokens, and the comparison in constant time.
#include "common/secrets.h"

#include <gtest/gtest.h>

#include <string>

namespace headgrader {
namespace {

TEST(Secrets, Sha256MatchesTheFipsTestVector) {
  // FIPS 180-2, Appendix B.1: SHA-256("abc").
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Secrets, RandomTokensAreBase64urlOf32BytesAndDiffer) {
  const auto a = random_token(32), b = random_token(32);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->size(), 43u);
  EXPECT_NE(*a, *b);
  EXPECT_EQ(
      a->find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
      std::string::npos);
}

TEST(Secrets, ConstantTimeEqualComparesWholeStrings) {
  EXPECT_TRUE(constant_time_equal("abc", "abc"));
  EXPECT_FALSE(constant_time_equal("abc", "abd"));
  EXPECT_FALSE(constant_time_equal("abc", "abcd"));
}

TEST(Secrets, HmacSha256MatchesRfc4231) {
  // RFC 4231, test case 2: key "Jefe".
  const std::string mac = hmac_sha256("Jefe", "what do ya want for nothing?");
  ASSERT_EQ(mac.size(), 32u);
  std::string hex;
  for (const unsigned char byte : mac) {
    hex += "0123456789abcdef"[byte >> 4];
    hex += "0123456789abcdef"[byte & 0xF];
  }
  EXPECT_EQ(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Secrets, RawSha256IsTheHexDigestsBytes) {
  const std::string raw = sha256("abc");
  ASSERT_EQ(raw.size(), 32u);
  EXPECT_EQ(static_cast<unsigned char>(raw[0]), 0xbaU);  // FIPS 180-2, Appendix B.1
  EXPECT_EQ(static_cast<unsigned char>(raw[31]), 0xadU);
}

TEST(Secrets, ConstantTimeEqualTakesEmptyStrings) {
  EXPECT_TRUE(constant_time_equal("", ""));
  EXPECT_FALSE(constant_time_equal("", "a"));
}

}  // namespace
}  // namespace headgrader

// Which strings are tested (API.md §4): SplitMix64 and the random strings against the
// contract's test vectors, the exhaustive set's size, duplicates counted once.
#include "headgrader/strings.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "test_support.h"

namespace headgrader {
namespace {

nlohmann::json vectors() {
  std::ifstream in(HEADGRADER_SHARED_DIR "/random-strings.json");
  return nlohmann::json::parse(in);
}

TEST(SplitMix64, MatchesTheContractsTestVectors) {
  const auto v = vectors();
  ASSERT_FALSE(v.at("splitmix64").empty());
  for (const auto& c : v.at("splitmix64")) {
    SplitMix64 rng(c.at("seed").get<std::uint64_t>());
    for (const auto& expected : c.at("first_outputs")) {
      EXPECT_EQ(std::to_string(rng.next()), expected.get<std::string>()) << "seed " << c.at("seed");
    }
  }
}

TEST(RandomStrings, MatchTheContractsTestVectors) {
  const auto v = vectors();
  ASSERT_FALSE(v.at("random_strings").empty());
  for (const auto& c : v.at("random_strings")) {
    const std::string alphabet = c.at("alphabet");
    const auto& draws = c.at("first_draws");
    const auto strings = draw_random_strings(c.at("seed"), draws.size(), c.at("max_length"),
                                             static_cast<int>(alphabet.size()));
    ASSERT_EQ(strings.size(), draws.size());
    for (std::size_t n = 0; n < strings.size(); ++n) {
      std::string spelled;
      for (int t : strings[n]) spelled += alphabet[static_cast<std::size_t>(t)];
      EXPECT_EQ(spelled, draws[n].get<std::string>()) << "seed " << c.at("seed") << ", draw " << n;
    }
  }
}

TEST(ExhaustiveSet, CountsEveryStringUpToTheLength) {
  EXPECT_EQ(exhaustive_count(2, 8), 510u);  // 2 + 4 + … + 256, API.md §4
  EXPECT_EQ(exhaustive_count(2, 24), 33'554'430u);
  EXPECT_EQ(exhaustive_count(3, 2), 12u);
  EXPECT_EQ(exhaustive_count(5, 0), 0u);
  EXPECT_EQ(exhaustive_count(256, 64), UINT64_MAX);  // saturates rather than wrapping
}

TEST(TestedSet, HandoutEmbeddingGives510ExhaustiveStringsOverAAndB) {
  const Problem& p = testing::bundled("consonant-anywhere");
  EXPECT_EQ(p.exhaustive_total(), 510u);
  // "a" stands for vowels, "b" consonants.
  EXPECT_EQ(p.representatives(), (std::vector<int>{0, 1}));
}

TEST(TestedSet, DuplicatesAreCountedOnceAndExhaustiveStringsAreNotRepeated) {
  const Problem& p = testing::bundled("consonant-anywhere");
  // Recompute the contract's set from scratch: exhaustive ∪ examples ∪ random, as a set.
  std::set<TokenString> all;
  for (int length = 1; length <= p.strings.exhaustive_length; ++length) {
    for (int bits = 0; bits < (1 << length); ++bits) {
      TokenString s;
      for (int k = length - 1; k >= 0; --k) s.push_back((bits >> k) & 1);  // a = 0, b = 1
      all.insert(s);
    }
  }
  for (const auto& e : p.examples) all.insert(e);
  for (const auto& s :
       draw_random_strings(p.strings.seed, p.strings.random, p.strings.max_length, 26)) {
    all.insert(s);
  }
  EXPECT_EQ(p.tested_total(), all.size());
  const std::set<TokenString> extra(p.extra_strings().begin(), p.extra_strings().end());
  EXPECT_EQ(extra.size(), p.extra_strings().size()) << "an extra string is listed twice";
}

TEST(Utf8, AlphabetsOfAnyScriptRoundTrip) {
  std::vector<char32_t> chars;
  ASSERT_TRUE(decode_utf8("aé漢🙂", chars));
  EXPECT_EQ(chars, (std::vector<char32_t>{U'a', U'é', U'漢', U'🙂'}));
  std::string back;
  for (char32_t c : chars) back += encode_utf8(c);
  EXPECT_EQ(back, "aé漢🙂");
  EXPECT_FALSE(decode_utf8("\xC3", chars));          // truncated
  EXPECT_FALSE(decode_utf8("\xC0\x80", chars));      // overlong
  EXPECT_FALSE(decode_utf8("\xED\xA0\x80", chars));  // surrogate
}

TEST(Shortlex, ShorterFirstThenAlphabetOrder) {
  EXPECT_TRUE(shortlex_less({1}, {0, 0}));
  EXPECT_TRUE(shortlex_less({0, 1}, {1, 0}));
  EXPECT_FALSE(shortlex_less({0, 1}, {0, 1}));
}

}  // namespace
}  // namespace headgrader

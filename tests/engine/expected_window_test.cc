// Which positions `expected` reads (Expected::window, grader/expected_window.cc), and
// `expected` along a walk kept per window key (grader/prefix_expected.h): the same bits and
// the same fault as evaluating the program on each prefix from scratch, for windows of every
// shape and for expressions that have none; and the table is what answers.
#include <gtest/gtest.h>

#include <cstring>
#include <variant>

#include "headgrader/expected.h"
#include "prefix_expected.h"
#include "prefix_walk.h"
#include "test_support.h"

namespace headgrader {
namespace {

std::optional<ExpectedWindow> window_of_source(const std::string& source) {
  ClassTable classes{{"vowel", "consonant"}, {{true, false, true}, {false, true, false}}, 3};
  auto parsed = parse_expected(source, classes);
  if (auto* error = std::get_if<ExpectedSyntaxError>(&parsed)) {
    ADD_FAILURE() << source << ": " << error->render(source);
    return std::nullopt;
  }
  return std::get<Expected>(parsed).window();
}

TEST(ExpectedWindow, NamesTheFixedPositionsAndTheDistancesBackThatAtAndIsRead) {
  const auto previous = window_of_source("pos == 1 ? [is(consonant), 0] : [at(pos - 1, vowel), 0]");
  ASSERT_TRUE(previous);
  EXPECT_EQ(previous->fixed, std::vector<int>{});
  EXPECT_EQ(previous->back, (std::vector<int>{0, 1}));

  const auto mixed =
      window_of_source("at(1, vowel) + at(pos + 1 - 3, consonant) + at(3 - 1, vowel)");
  ASSERT_TRUE(mixed);
  EXPECT_EQ(mixed->fixed, (std::vector<int>{1, 2}));
  EXPECT_EQ(mixed->back, std::vector<int>{2});

  // Positions after the last, or not whole, read nothing; pos alone reads no token.
  const auto none = window_of_source("at(pos + 2, vowel) + at(0.5, vowel) + 1 / (pos - 3)");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->fixed.empty() && none->back.empty());

  // A branch between two positions, a multiple of pos, a fraction off pos, a class count.
  for (const char* source :
       {"at(pos == 1 ? 1 : pos - 1, vowel)", "at(2 * pos, vowel)", "at(pos - 0.5, vowel)",
        "at(pos - 1e-17, vowel)", "count(vowel) + at(1, vowel)", "mean(consonant)",
        "any(vowel) ? 1 : 0", "all(vowel)"}) {
    EXPECT_FALSE(window_of_source(source)) << source;
  }
}

TEST(ExpectedWindow, FixedPositionsComeFromTheSameReadsAndIgnoreAtsPastTheEnd) {
  ClassTable classes{{"vowel", "consonant"}, {{true, false, true}, {false, true, false}}, 3};
  const auto fixed = [&](const std::string& source) {
    auto parsed = parse_expected(source, classes);
    return std::get<Expected>(parsed).fixed_positions();
  };
  EXPECT_EQ(fixed("at(2, vowel) + count(vowel) + is(vowel)"), std::vector<int>{2});
  // at(pos + 1, C) is always past the last token: it reads nothing.
  EXPECT_EQ(fixed("at(pos + 1, vowel) + at(3 - 2, vowel)"), std::vector<int>{1});
  EXPECT_FALSE(fixed("at(pos - 1, vowel)"));
  EXPECT_FALSE(fixed("at(count(vowel), vowel)"));
}

// consonant-anywhere with `expected` replaced (a 2-vector) and a tolerance any head meets.
Problem with_expected(const std::string& source, int max_length) {
  nlohmann::json j = testing::bundled_json("consonant-anywhere");
  j["id"] = "window";
  j["expected"] = source;
  j["tolerance"] = 1e9;
  j["strings"] = {{"max_length", max_length}, {"exhaustive_length", max_length}};
  return testing::loaded_or_abort(j);
}

// PrefixExpected along every string up to `depth` (beyond the tested set: so that a fault
// the load would refuse can be met) against Expected::evaluate on each prefix.
std::size_t expect_same_along_a_walk(const Problem& p, int depth, const std::string& what) {
  PrefixExpected along(p, depth);
  std::vector<double> kept(p.n_v), fresh(p.n_v);
  std::vector<int> counts(p.classes.names.size());
  std::size_t prefixes = 0;
  // Over three tokens of the alphabet (two vowels, a consonant): groups and tokens both vary.
  walk_prefixes({0, 1, 4}, depth, [&](std::span<const int> prefix) {
    ++prefixes;
    const auto fault = along.extend(prefix, kept.data());
    count_classes(p.classes, prefix, counts);
    const auto fresh_fault = p.expected->evaluate(PrefixFacts{prefix, counts}, fresh);
    EXPECT_EQ(fault.has_value(), fresh_fault.has_value()) << what << " at " << prefix.size();
    if (fault && fresh_fault) {
      EXPECT_EQ(fault->column, fresh_fault->column) << what;
    } else if (!fault && !fresh_fault) {
      EXPECT_EQ(std::memcmp(kept.data(), fresh.data(), p.n_v * sizeof(double)), 0)
          << what << " at " << p.spell(TokenString(prefix.begin(), prefix.end()));
    }
    return true;
  });
  EXPECT_EQ(along.programs_run() < prefixes, p.expected->window().has_value()) << what;
  return along.programs_run();
}

TEST(PrefixExpected, AWindowsTableGivesTheProgramsBitsAndFaultsOnEveryPrefix) {
  const std::vector<std::string> sources = {
      "pos == 1 ? [is(consonant), 0] : [at(pos - 1, consonant), 0]",
      "[at(pos - 2, vowel) + is(vowel) / 3, at(1, consonant) * pos / 7]",
      "[at(pos + 1 - 3, consonant), at(2, vowel) - 0.1 * pos]",
      "[1 / (pos - 3), at(pos, consonant)]",     // faults at position 3 only
      "[at(pos == 1 ? 1 : pos - 1, vowel), 0]",  // no window: every prefix evaluated
      // pos − 1e-17 rounds back to pos: it reads the last token, so it stops the window.
      "[at(pos - 1e-17, consonant), at(pos + 1 - 1e-17, vowel)]",
      "[mean(consonant), at(1, vowel)]",
  };
  for (const std::string& source : sources) {
    // Loaded with strings up to length 2 (where 1 / (pos - 3) is defined), walked to 6.
    expect_same_along_a_walk(with_expected(source, 2), 6, source);
  }
}

TEST(PrefixExpected, TheTableRunsTheProgramOncePerKey) {
  // at(pos - 1) and is(): a row per (length, group before, group last): 6 lengths × 2 × 2,
  // of which length 1 has no token before (its key is 0 there): 2 + 5 × 4 = 22.
  const Problem p = with_expected("pos == 1 ? [is(consonant), 0] : [at(pos - 1, consonant), 0]", 6);
  EXPECT_EQ(expect_same_along_a_walk(p, 6, "previous letter"), 22u);
}

}  // namespace
}  // namespace headgrader

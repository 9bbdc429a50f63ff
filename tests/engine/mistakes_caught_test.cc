// Mistakes caught (API.md §14): each named mistake that applies, made on the reference, with
// whether the tests catch it and the shortest tested string that does, worked by hand on the
// handout's problem and on a twin made too lax; and its JSON and text forms.
#include <gtest/gtest.h>

#include "headgrader/diagnosis.h"
#include "headgrader/report.h"
#include "test_support.h"

namespace headgrader {
namespace {

std::vector<std::string> caught_rows(const LintReport& lint) {
  std::vector<std::string> rows;
  for (const auto& row : lint.mistakes_caught) {
    rows.push_back(row.mistake + (row.caught ? " by " + row.by.value() : " not caught"));
    EXPECT_EQ(row.caught, row.by.has_value()) << row.mistake;
  }
  return rows;
}

// consonant-anywhere: a vowel's embedding [1, 0], a consonant's [0, 1]; the reference scores
// a consonant key 5 and a vowel 0 and copies the embedding (W_V the identity). The tested
// strings that matter are over "a" and "b" (the groups' first letters), shortest first:
// - W_k all 0 (uniform), W_q and W_k exchanged (every key 1: uniform again) and W_k
//   negated (the vowel gets e^5 / (1 + e^5)) all pass every string of length 1 and are off
//   by 0.5 or more at position 2 of "ab", expected [0, 1];
// - W_k × 0.5: at "ab" the b gets e^2.5 / (1 + e^2.5) = 0.924 (off by 0.076, passes), at
//   "aab" e^2.5 / (2 + e^2.5) = 0.859 (off by 0.141 > 0.1): first caught by "aab";
// - W_V rows exchanged: "a" gives [0, 1] where [1, 0] is expected;
// - W_V's row 1 set to 0 fails "a", row 2 set to 0 passes "a" and fails "b": caught once
//   both are, by "b".
// query_too_soft (W_k is submitted) and no_position_feature (no W_P) do not apply.
TEST(MistakesCaught, TheHandoutsProblemCatchesEachMistakeByItsShortestString) {
  const LintReport lint = lint_problem(testing::bundled("consonant-anywhere"));
  EXPECT_EQ(caught_rows(lint),
            (std::vector<std::string>{"uniform_attention by ab", "query_key_swapped by ab",
                                      "attends_to_wrong_class by ab", "key_too_soft by aab",
                                      "value_rows_swapped by a", "value_wrong by b"}));
}

TEST(MistakesCaught, AMistakeTheTestsMissIsNotCaughtAndStillAWarning) {
  // As AProblemMadeTooLaxWarnsOfTheSoftKey: strings of length 2 and a tolerance of 0.3, where
  // "ab" is off by 0.076 with the soft key and 0.5 or more with the others.
  Json j = testing::bundled_json("consonant-anywhere");
  j["id"] = "lax";
  j["tolerance"] = 0.3;
  j["strings"] = {{"max_length", 2}};
  const LintReport lint = lint_problem(testing::loaded_or_abort(j));
  EXPECT_EQ(caught_rows(lint),
            (std::vector<std::string>{"uniform_attention by ab", "query_key_swapped by ab",
                                      "attends_to_wrong_class by ab", "key_too_soft not caught",
                                      "value_rows_swapped by a", "value_wrong by b"}));
  ASSERT_EQ(lint.warnings.size(), 1u);
  EXPECT_NE(lint.warnings[0].message.find("(key_too_soft)"), std::string::npos);
}

TEST(MistakesCaught, TheJsonAndTheTableSayTheSame) {
  const std::vector<MistakeCaught> rows = {{"uniform_attention", true, "ab"},
                                           {"key_too_soft", false, std::nullopt}};
  EXPECT_EQ(mistakes_caught_to_json(rows).dump(),
            R"([{"mistake":"uniform_attention","caught":true,"by":"ab"},)"
            R"({"mistake":"key_too_soft","caught":false,"by":null}])");
  EXPECT_EQ(mistakes_caught_text(rows),
            "  mistake            caught  by (the shortest string that fails it)\n"
            "  uniform_attention  yes     \"ab\"\n"
            "  key_too_soft       no      -\n");
}

}  // namespace
}  // namespace headgrader

// Named mistakes (API.md §13): each mistake of the library, made on purpose in a submission
// to a bundled problem or a test problem with W_P, gets exactly that diagnosis, and the fix
// its message suggests passes when graded; a correct and an unrelated wrong answer get none.
// The too-soft factor is checked against a bisection written here over the independent head;
// the lint warns on a problem made too lax and on none of the bundled ones.
#include "headgrader/diagnosis.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <regex>

#include "headgrader/limits.h"
#include "headgrader/report.h"
#include "test_support.h"

namespace headgrader {
namespace {

using testing::bundled;
using testing::bundled_json;
using testing::rows;

Problem load(const Json& json) {
  auto loaded = load_problem_text(json.dump(), json.at("id").get<std::string>() + ".json");
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    for (const auto& d : *defects) ADD_FAILURE() << d.to_string();
    std::abort();
  }
  return std::get<Problem>(std::move(loaded));
}

// A second problem with W_P: is the first letter a vowel? (first-position's twin, whose
// reference attends to position 1 and values vowels.)
const Problem& first_vowel() {
  static const Problem p = [] {
    Json j = bundled_json("first-position");
    j["id"] = "first-vowel";
    j["expected"] = "at(1, vowel) ? [1, 0] : [0, 0]";
    j["strings"]["examples"] = Json::array({"eacia", "ccrs"});
    j["reference"]["W_V"] = {{1, 0, 0}, {0, 0, 0}};
    return load(j);
  }();
  return p;
}

HeadWeights head(Matrix q, Matrix k, Matrix v) {
  return {std::move(q), std::move(k), std::move(v)};
}

std::vector<Diagnosis> diagnosis_of(const Problem& p, const HeadWeights& w) {
  const GradeReport report = grade_with_diagnosis(p, w, 3);
  EXPECT_FALSE(report.passed) << "the submission should fail " << p.id;
  EXPECT_FALSE(report.margin.has_value());
  EXPECT_TRUE(report.diagnosis_not_tried.empty());
  return report.diagnosis;
}

// Exactly one diagnosis, of this mistake; returns it.
Diagnosis only(const Problem& p, const HeadWeights& w, const std::string& mistake) {
  const auto found = diagnosis_of(p, w);
  std::string names;
  for (const auto& d : found) names += d.mistake + " ";
  EXPECT_EQ(found.size(), 1u) << names;
  if (found.empty()) return {};
  EXPECT_EQ(found[0].mistake, mistake) << found[0].message;
  EXPECT_FALSE(found[0].message.empty());
  EXPECT_FALSE(found[0].hint.empty());
  return found[0];
}

bool fix_passes(const Problem& p, const HeadWeights& fixed) { return grade(p, fixed, 0).passed; }

const HeadWeights kAnywhere = head(rows({{1, 1}}), rows({{0, 5}}), rows({{1, 0}, {0, 1}}));

// --- The factor, found independently ---------------------------------------------------

// Every tested string of consonant-anywhere, run through the independent head and compared
// with `expected` written out here (any consonant so far → [0, 1]).
bool independent_passes(const Problem& p, const HeadWeights& w) {
  const auto passes = [&](const TokenString& s) {
    const auto h = testing::independent_head(p.head, w, s);
    bool consonant = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const char c = static_cast<char>(p.alphabet_chars[static_cast<std::size_t>(s[i])]);
      consonant = consonant || std::string("aeiou").find(c) == std::string::npos;
      const auto row = static_cast<Eigen::Index>(i);
      if (!(std::fabs(h.out(row, 0) - (consonant ? 0 : 1)) <= p.tolerance) ||
          !(std::fabs(h.out(row, 1) - (consonant ? 1 : 0)) <= p.tolerance)) {
        return false;
      }
    }
    return true;
  };
  for (int L = 1; L <= p.strings.exhaustive_length; ++L) {
    for (int bits = 0; bits < (1 << L); ++bits) {
      TokenString s;
      for (int i = 0; i < L; ++i) s.push_back((bits >> i) & 1);  // a = 0, b = 1
      if (!passes(s)) return false;
    }
  }
  for (const auto& s : p.extra_strings()) {
    if (!passes(s)) return false;
  }
  return true;
}

// The smallest factor on W_k that passes, by plain bisection on [1, 64] (60 halvings), then
// rounded up to 2 significant figures, with the 2-figure number below it.
std::pair<double, double> independent_factor(const Problem& p, const HeadWeights& w) {
  const auto passes_with = [&](double c) {
    HeadWeights scaled = w;
    scaled.W_k *= c;
    return independent_passes(p, scaled);
  };
  double lo = 1, hi = 64;
  EXPECT_FALSE(passes_with(lo));
  EXPECT_TRUE(passes_with(hi));
  for (int i = 0; i < 60; ++i) (passes_with((lo + hi) / 2) ? hi : lo) = (lo + hi) / 2;
  const double step = std::pow(10.0, std::floor(std::log10(hi)) - 1);
  const double up = std::ceil(hi / step - 1e-9) * step;
  return {up, up - step};
}

TEST(Diagnosis, ASoftKeyIsKeyTooSoftWithTheSmallestFactorToTwoFigures) {
  const Problem& p = bundled("consonant-anywhere");
  const HeadWeights soft = head(rows({{1, 1}}), rows({{0, 2}}), rows({{1, 0}, {0, 1}}));
  const Diagnosis d = only(p, soft, "key_too_soft");
  const auto [factor, below] = independent_factor(p, soft);
  // e^{2c} must beat 7 vowels 9-fold at "aaaaaaab": 2c ≥ ln 63 = 4.143, so c ≥ 2.07 → 2.1.
  EXPECT_DOUBLE_EQ(factor, 2.1);
  EXPECT_EQ(d.message,
            "multiplying W_k by 2.1 passes every tested string (2 does not): your key points the "
            "right way but is too soft; softmax needs a larger gap between the scores to come "
            "within 0.1 of the expected output at every position up to length 8");
  EXPECT_EQ(d.hint, "multiply W_k by 2.1 or more (or W_q: the scores are their product)");
  EXPECT_DOUBLE_EQ(below, 2.0);
  HeadWeights fixed = soft;
  fixed.W_k *= 2.1;
  EXPECT_TRUE(fix_passes(p, fixed));
  fixed.W_k = soft.W_k * 2.0;
  EXPECT_FALSE(fix_passes(p, fixed));
}

TEST(Diagnosis, FactorsMatchAnIndependentBisectionAcrossKeys) {
  const Problem& p = bundled("consonant-anywhere");
  for (const double key : {0.5, 1.0, 1.3, 3.0, 3.9}) {
    SCOPED_TRACE(key);
    const HeadWeights soft = head(rows({{1, 1}}), rows({{0, key}}), rows({{1, 0}, {0, 1}}));
    const Diagnosis d = only(p, soft, "key_too_soft");
    const auto [factor, below] = independent_factor(p, soft);
    const std::regex pattern(
        "multiplying W_k by ([0-9.]+) passes every tested string \\(([0-9.]+) does not\\).*");
    std::smatch m;
    ASSERT_TRUE(std::regex_match(d.message, m, pattern)) << d.message;
    EXPECT_NEAR(std::stod(m[1]), factor, 1e-9 * factor);
    EXPECT_NEAR(std::stod(m[2]), below, 1e-9 * factor);
  }
}

TEST(Diagnosis, ASoftQueryIsQueryTooSoft) {
  const Problem& p = bundled("consonant-anywhere");
  // Relative to the reference the query is the soft one (0.4 of it, the key all of it).
  const HeadWeights soft = head(rows({{0.4, 0.4}}), rows({{0, 5}}), rows({{1, 0}, {0, 1}}));
  const Diagnosis d = only(p, soft, "query_too_soft");
  EXPECT_TRUE(
      d.message.starts_with("multiplying W_q by 2.1 passes every tested string (2 does "
                            "not): your query points the right way"))
      << d.message;
  HeadWeights fixed = soft;
  fixed.W_q *= 2.1;
  EXPECT_TRUE(fix_passes(p, fixed));
}

TEST(Diagnosis, ExchangedQueryAndKeyIsQueryKeySwapped) {
  const Problem& p = bundled("consonant-anywhere");
  const HeadWeights swapped = head(rows({{0, 5}}), rows({{1, 1}}), rows({{1, 0}, {0, 1}}));
  const Diagnosis d = only(p, swapped, "query_key_swapped");
  EXPECT_EQ(d.hint, "swap your W_q and W_k");
  EXPECT_TRUE(fix_passes(p, head(swapped.W_k, swapped.W_q, swapped.W_V)));
}

TEST(Diagnosis, ANegatedKeyAttendsToTheWrongClass) {
  for (const Problem* p : {&bundled("consonant-anywhere"), &bundled("first-position")}) {
    SCOPED_TRACE(p->id);
    HeadWeights wrong = p->reference;
    wrong.W_k = -wrong.W_k;
    const Diagnosis d = only(*p, wrong, "attends_to_wrong_class");
    EXPECT_TRUE(d.message.starts_with("negating W_k passes every tested string")) << d.message;
    EXPECT_TRUE(fix_passes(*p, p->reference));  // the suggested fix is the negation back
  }
}

TEST(Diagnosis, ExchangedValueRowsAreValueRowsSwapped) {
  for (const Problem* p : {&bundled("consonant-anywhere"), &bundled("consonant-proportion")}) {
    SCOPED_TRACE(p->id);
    HeadWeights wrong = p->reference;
    wrong.W_V.row(0).swap(wrong.W_V.row(1));
    const Diagnosis d = only(*p, wrong, "value_rows_swapped");
    EXPECT_EQ(d.hint, "swap rows 1 and 2 of W_V");
    HeadWeights fixed = wrong;
    fixed.W_V.row(0).swap(fixed.W_V.row(1));
    EXPECT_TRUE(fix_passes(*p, fixed));
  }
}

TEST(Diagnosis, AWrongValueRowIsValueWrongNamingTheComponent) {
  const Problem& p = bundled("consonant-anywhere");
  const HeadWeights wrong = head(rows({{1, 1}}), rows({{0, 5}}), rows({{1, 0}, {0, 0.5}}));
  const Diagnosis d = only(p, wrong, "value_wrong");
  EXPECT_EQ(d.message,
            "your attention is right (with a correct W_V your W_q and W_k pass every tested "
            "string), but your W_V is not: output component 2 is off (row 2 of W_V)");
  // The fix: row 2 such that consonants contribute [0, 1] (the handout's identity).
  EXPECT_TRUE(fix_passes(p, head(wrong.W_q, wrong.W_k, rows({{1, 0}, {0, 1}}))));
  // On first-position: values for vowels instead of consonants, component 1 off.
  const Problem& first = bundled("first-position");
  const HeadWeights vowels =
      head(rows({{1, 1, 0}}), rows({{0, 0, 5}}), rows({{1, 0, 0}, {0, 0, 0}}));
  EXPECT_NE(only(first, vowels, "value_wrong").message.find("output component 1 is off"),
            std::string::npos);
}

TEST(Diagnosis, AZeroQueryOrKeyIsUniformAttention) {
  const Problem& p = bundled("consonant-anywhere");
  const Diagnosis d =
      only(p, head(rows({{0, 0}}), rows({{0, 5}}), rows({{1, 0}, {0, 1}})), "uniform_attention");
  EXPECT_TRUE(d.message.starts_with("your W_q is all zeros, so every score is 0")) << d.message;
  EXPECT_TRUE(fix_passes(p, kAnywhere));  // a non-zero W_q: the handout's [1, 1]
  const Problem& first = bundled("first-position");
  const Diagnosis zero_key =
      only(first, head(rows({{1, 1, 0}}), rows({{0, 0, 0}}), rows({{0, 1, 0}, {0, 0, 0}})),
           "uniform_attention");
  EXPECT_TRUE(zero_key.message.starts_with("your W_k is all zeros")) << zero_key.message;
}

TEST(Diagnosis, AKeyThatIgnoresThePositionFeatureIsNoPositionFeature) {
  // consonant-anywhere's key on first-position: it attends to consonants, not to position 1.
  const Problem& first = bundled("first-position");
  const HeadWeights by_class =
      head(rows({{1, 1, 0}}), rows({{0, 5, 0}}), rows({{0, 1, 0}, {0, 0, 0}}));
  const Diagnosis d = only(first, by_class, "no_position_feature");
  EXPECT_NE(d.message.find("W_k (column 3) is all 0"), std::string::npos) << d.message;
  EXPECT_EQ(d.hint,
            "give W_k (column 3) a non-zero weight, so that the scores tell the "
            "positions apart");
  // The fix: weight on column 3 (the position feature), none on the consonant feature.
  EXPECT_TRUE(fix_passes(first, head(by_class.W_q, rows({{0, 0, 5}}), by_class.W_V)));
  // The test problem with W_P: a key on vowels where position 1 should be.
  const Problem& vowel = first_vowel();
  const HeadWeights by_vowel =
      head(rows({{1, 1, 0}}), rows({{5, 0, 0}}), rows({{1, 0, 0}, {0, 0, 0}}));
  only(vowel, by_vowel, "no_position_feature");
  EXPECT_TRUE(fix_passes(vowel, head(by_vowel.W_q, rows({{0, 0, 5}}), by_vowel.W_V)));
}

TEST(Diagnosis, TheTestProblemWithPositionsNamesItsMistakesToo) {
  const Problem& vowel = first_vowel();
  HeadWeights soft = vowel.reference;
  soft.W_k *= 0.4;  // a gap of 2 against up to 7 others
  only(vowel, soft, "key_too_soft");
  HeadWeights swapped_rows = vowel.reference;
  swapped_rows.W_V.row(0).swap(swapped_rows.W_V.row(1));
  only(vowel, swapped_rows, "value_rows_swapped");
}

TEST(Diagnosis, ACorrectAnswerHasNoneAndAMargin) {
  for (const auto& p : testing::bundled_problems().problems()) {
    SCOPED_TRACE(p->id);
    const GradeReport report = grade_with_diagnosis(*p, p->reference, 3);
    EXPECT_TRUE(report.passed);
    EXPECT_TRUE(report.diagnosis.empty());
    ASSERT_TRUE(report.margin.has_value());
    EXPECT_EQ(report.margin->tolerance, p->tolerance);
    EXPECT_EQ(report.margin->slack, p->tolerance - report.margin->worst_error);
  }
  // consonant-anywhere: the worst position is "aaaaaaab" at 8 (7 vowels against e^5):
  // error 7 / (7 + e^5) = 0.04509; every query sees scores 0 and 5, a gap of 5.
  const GradeReport anywhere = grade_with_diagnosis(bundled("consonant-anywhere"), kAnywhere, 3);
  EXPECT_NEAR(anywhere.margin->worst_error, 7 / (7 + std::exp(5.0)), 1e-15);
  EXPECT_EQ(anywhere.margin->score_gap, 5.0);
  const Json json = Json::parse(report_json(bundled("consonant-anywhere"), anywhere));
  EXPECT_EQ(json.at("diagnosis"), Json::array());
  EXPECT_EQ(json.at("margin").at("score_gap"), 5);
  EXPECT_EQ(json.at("margin").at("tolerance"), 0.1);
  // consonant-proportion's reference attends uniformly: no score gap.
  const auto& proportion = bundled("consonant-proportion");
  const GradeReport uniform = grade_with_diagnosis(proportion, proportion.reference, 3);
  EXPECT_FALSE(uniform.margin->score_gap.has_value());
  EXPECT_FALSE(Json::parse(report_json(proportion, uniform)).at("margin").contains("score_gap"));
}

TEST(Diagnosis, AnUnrelatedWrongAnswerHasNone) {
  const HeadWeights unrelated =
      head(rows({{0.3, -0.7}}), rows({{0.2, 0.9}}), rows({{0.5, 0.1}, {-0.2, 0.4}}));
  for (const char* id : {"consonant-anywhere", "consonant-proportion"}) {
    SCOPED_TRACE(id);
    EXPECT_TRUE(diagnosis_of(bundled(id), unrelated).empty());
  }
  const HeadWeights unrelated3 = head(rows({{0.3, -0.7, 0.1}}), rows({{0.2, 0.9, -0.4}}),
                                      rows({{0.5, 0.1, 0.3}, {-0.2, 0.4, 0.6}}));
  EXPECT_TRUE(diagnosis_of(bundled("first-position"), unrelated3).empty());
  const GradeReport report = grade_with_diagnosis(bundled("consonant-anywhere"), unrelated, 3);
  const Json json = Json::parse(report_json(bundled("consonant-anywhere"), report));
  EXPECT_EQ(json.at("diagnosis"), Json::array());
  EXPECT_FALSE(json.contains("margin"));
  EXPECT_FALSE(json.contains("diagnosis_not_tried"));
}

TEST(Diagnosis, TheAnswerKeepsTheContractsKeyOrder) {
  const Problem& p = bundled("consonant-anywhere");
  const HeadWeights soft = head(rows({{1, 1}}), rows({{0, 2}}), rows({{1, 0}, {0, 1}}));
  const Json failing = Json::parse(report_json(p, grade_with_diagnosis(p, soft, 1)));
  std::vector<std::string> keys;
  for (const auto& [key, value] : failing.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"problem", "passed", "score", "tests", "examples",
                                            "failures", "diagnosis"}));
  ASSERT_EQ(failing.at("diagnosis").size(), 1u);
  std::vector<std::string> fields;
  for (const auto& [key, value] : failing["diagnosis"][0].items()) fields.push_back(key);
  EXPECT_EQ(fields, (std::vector<std::string>{"mistake", "message", "hint"}));
  const Json passing = Json::parse(report_json(p, grade_with_diagnosis(p, kAnywhere, 1)));
  keys.clear();
  for (const auto& [key, value] : passing.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"problem", "passed", "score", "tests", "examples",
                                            "failures", "diagnosis", "margin"}));
}

TEST(Diagnosis, ALongProblemSaysWhichMistakesWereNotTried) {
  // first-position tested up to length 16: 131 070 strings, judged prefix by prefix (no two
  // positions alike), four times the budget for one grading: nothing can be tried, and the
  // answer says so.
  const Problem p = load(testing::prefix_by_prefix_problem("first-position-long", 16));
  ASSERT_GT(p.tested_total(), limits::kDiagnosisBudgetStrings);
  HeadWeights soft = p.reference;
  soft.W_k *= 0.4;
  const GradeReport report = grade_with_diagnosis(p, soft, 1);
  EXPECT_FALSE(report.passed);
  EXPECT_TRUE(report.diagnosis.empty());
  EXPECT_EQ(report.diagnosis_not_tried,
            (std::vector<std::string>{"query_key_swapped", "attends_to_wrong_class", "key_too_soft",
                                      "value_rows_swapped"}));
  const Json json = Json::parse(report_json(p, report));
  EXPECT_EQ(json.at("diagnosis_not_tried"),
            Json::parse(R"(["query_key_swapped", "attends_to_wrong_class", "key_too_soft",
                            "value_rows_swapped"])"));
}

TEST(Diagnosis, TheLibraryNamesEveryMistakeOfTheContract) {
  EXPECT_EQ(mistake_names(),
            (std::vector<std::string>{"uniform_attention", "query_key_swapped",
                                      "attends_to_wrong_class", "key_too_soft", "query_too_soft",
                                      "value_rows_swapped", "value_wrong", "no_position_feature"}));
}

TEST(Lint, TheBundledProblemsTellEveryMistakeFromTheSolution) {
  for (const auto& p : testing::bundled_problems().problems()) {
    SCOPED_TRACE(p->id);
    const LintReport lint = lint_problem(*p);
    for (const auto& w : lint.warnings) ADD_FAILURE() << w.field << ": " << w.message;
    EXPECT_GT(lint.reference_margin.slack, 0);
  }
  EXPECT_TRUE(lint_problem(first_vowel()).warnings.empty());
}

TEST(Lint, AProblemMadeTooLaxWarnsOfTheSoftKey) {
  // Strings of length 2 and a tolerance of 0.3: half the handout's key (e^2.5) still puts
  // 1 − 1 / (1 + e^2.5) = 0.924 on the consonant.
  Json j = bundled_json("consonant-anywhere");
  j["id"] = "lax";
  j["tolerance"] = 0.3;
  j["strings"] = {{"max_length", 2}};
  const LintReport lint = lint_problem(load(j));
  ASSERT_EQ(lint.warnings.size(), 1u);
  EXPECT_EQ(lint.warnings[0].field, "strings");
  EXPECT_EQ(lint.warnings[0].message,
            "the reference with a too-soft key (W_k × 0.5) passes every tested string: the tests "
            "cannot tell that mistake (key_too_soft) from the solution; raise "
            "strings.max_length or lower the tolerance");
}

TEST(Lint, AProblemThatNeverNeedsThePositionWarns) {
  // first-position with strings of length 2 and a tolerance of 0.6: attending evenly to
  // both tokens is off by 0.5 at most, so neither the position feature nor which of W_q and
  // W_k holds it is ever needed.
  Json j = bundled_json("first-position");
  j["id"] = "short";
  j["tolerance"] = 0.6;
  j["strings"] = {{"max_length", 2}, {"examples", Json::array()}};
  const LintReport lint = lint_problem(load(j));
  std::vector<std::string> found;
  for (const auto& w : lint.warnings)
    found.push_back(w.message.substr(0, w.message.find(" passes")));
  EXPECT_EQ(found, (std::vector<std::string>{
                       "the reference with uniform attention (W_k all 0)",
                       "the reference with W_q and W_k exchanged",
                       "the reference with a too-soft key (W_k × 0.5)",
                       "the reference with no weight on the position features in W_q and W_k"}));
}

}  // namespace
}  // namespace headgrader

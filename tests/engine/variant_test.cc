// A student's variant (headgrader/variant.h, API.md §15): drawn from the secret and the student,
// stable, written as an id that rebuilds it, and solvable by the reference transformed by the
// matrices M = S·P and Σ written out here, independently of the engine's column shuffles.
#include "headgrader/variant.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "headgrader/grade.h"
#include "headgrader/problem_warnings.h"
#include "test_support.h"

namespace headgrader {
namespace {

using testing::bundled_json;
using testing::loaded_or_abort;

const std::string kVariantSecret = "0123456789abcdef0123456789abcdef-course-secret";

// The handout's Exercise 3 with every relabeling on: 3 rows, 2 outputs, 3 scales.
nlohmann::json variant_problem_json() {
  nlohmann::json j = bundled_json("first-position");
  j["id"] = "first-position-variants";
  j["statement"] = "Output [1, 0] when the first letter is a consonant, else [0, 0].";
  j["feature_names"] = {"vowel", "consonant", "start"};
  j["variants"] = {
      {"permute_features", true}, {"permute_outputs", true}, {"feature_scales", {1, 2, 0.5}}};
  return j;
}

const Problem& variant_problem() {
  static const Problem p = loaded_or_abort(variant_problem_json());
  return p;
}

// The relabeled problem, or a failed test.
Problem student_problem(const Problem& p, const Relabeling& r) {
  auto derived = relabel_problem(p, r);
  if (auto* defects = std::get_if<std::vector<Defect>>(&derived)) {
    for (const auto& d : *defects) ADD_FAILURE() << d.to_string();
    std::abort();
  }
  return std::get<Problem>(std::move(derived));
}

// The header's matrices, built entry by entry: M = S·P with (P x)_i = x_{π(i)}, and Σ with
// (Σ y)_j = y_{σ(j)}.
Matrix independent_M(const Problem& p, const Relabeling& r) {
  const auto n = static_cast<Eigen::Index>(p.n_e);
  Matrix P = Matrix::Zero(n, n), S = Matrix::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto iu = static_cast<std::size_t>(i);
    P(i, static_cast<Eigen::Index>(r.features.empty() ? iu : r.features[iu])) = 1;
    S(i, i) = r.scales.empty() ? 1.0 : p.variants.feature_scales[r.scales[iu]];
  }
  return S * P;
}
Matrix independent_Sigma(const Problem& p, const Relabeling& r) {
  const auto n = static_cast<Eigen::Index>(p.n_v);
  Matrix Sigma = Matrix::Zero(n, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    const auto ju = static_cast<std::size_t>(j);
    Sigma(j, static_cast<Eigen::Index>(r.outputs.empty() ? ju : r.outputs[ju])) = 1;
  }
  return Sigma;
}
HeadWeights independent_to_student(const Problem& p, const Relabeling& r, const HeadWeights& w) {
  const Matrix M_inverse = independent_M(p, r).inverse();
  return HeadWeights{w.W_q * M_inverse, w.W_k * M_inverse,
                     independent_Sigma(p, r) * w.W_V * M_inverse};
}

bool variant_passes(const Problem& p, const HeadWeights& w) { return grade(p, w, 0).passed; }

// The first of student-1, student-2, … whose relabeling differs from `other`'s in every part.
std::string student_unlike(const Relabeling& other) {
  for (int k = 1;; ++k) {
    const std::string name = "student-" + std::to_string(k);
    const Relabeling r = derive_relabeling(kVariantSecret, variant_problem(), name);
    if (r.features != other.features && r.scales != other.scales && r.outputs != other.outputs) {
      return name;
    }
  }
}

TEST(Variant, TwoStudentsGetDifferentVariantsAndEachAlwaysTheSame) {
  const Relabeling alice = derive_relabeling(kVariantSecret, variant_problem(), "alice");
  const std::string other = student_unlike(alice);
  const Relabeling bob = derive_relabeling(kVariantSecret, variant_problem(), other);
  EXPECT_NE(variant_id(alice), variant_id(bob));
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(derive_relabeling(kVariantSecret, variant_problem(), "alice"), alice);
    EXPECT_EQ(derive_relabeling(kVariantSecret, variant_problem(), other), bob);
  }
  // Each part is what the problem's `variants` ask for.
  EXPECT_EQ(alice.features.size(), 3u);
  EXPECT_EQ(alice.scales.size(), 3u);
  EXPECT_EQ(alice.outputs.size(), 2u);
}

TEST(Variant, EachStudentPassesWithTheirTransformedReferenceAndFailsWithTheOthers) {
  const Problem& p = variant_problem();
  const Relabeling alice = derive_relabeling(kVariantSecret, p, "alice");
  const Relabeling bob = derive_relabeling(kVariantSecret, p, student_unlike(alice));
  const Problem alice_problem = student_problem(p, alice), bob_problem = student_problem(p, bob);
  // The student's W_E and W_P are M W_E and M W_P.
  EXPECT_TRUE(alice_problem.head.W_E.isApprox(independent_M(p, alice) * p.head.W_E));
  EXPECT_TRUE(alice_problem.head.W_P->isApprox(independent_M(p, alice) * *p.head.W_P));
  EXPECT_EQ(alice_problem.variant, variant_id(alice));

  const HeadWeights alice_head = independent_to_student(p, alice, p.reference);
  const HeadWeights bob_head = independent_to_student(p, bob, p.reference);
  EXPECT_TRUE(variant_passes(alice_problem, alice_head));
  EXPECT_TRUE(variant_passes(bob_problem, bob_head));
  EXPECT_FALSE(variant_passes(alice_problem, bob_head));
  EXPECT_FALSE(variant_passes(bob_problem, alice_head));
  // The problem as written is not the variant's: with the outputs reordered, the reference
  // itself fails it.
  if (alice.outputs != std::vector<std::size_t>{0, 1}) {
    EXPECT_FALSE(variant_passes(alice_problem, p.reference));
  }
}

TEST(Variant, TheStudentsOutputIsTheProblemsReorderedByTheIndependentTrace) {
  const Problem& p = variant_problem();
  const Relabeling r = derive_relabeling(kVariantSecret, p, "alice");
  const Problem student = student_problem(p, r);
  const HeadWeights head = independent_to_student(p, r, p.reference);
  for (const char* text : {"b", "ab", "bcae"}) {
    const TokenString s = testing::tokens_of(p, text);
    const Matrix theirs = testing::independent_head(student.head, head, s).out;
    const Matrix ours = testing::independent_head(p.head, p.reference, s).out;
    // out' = Σ out at each position: rows of `out` are positions, so out'ᵀ = Σ outᵀ.
    EXPECT_TRUE(theirs.transpose().isApprox(independent_Sigma(p, r) * ours.transpose(), 1e-12))
        << text;
  }
}

TEST(Variant, AHeadMappedBackIsTheProblemsHead) {
  const Problem& p = variant_problem();
  const Relabeling r = derive_relabeling(kVariantSecret, p, "alice");
  const HeadWeights sent = independent_to_student(p, r, p.reference);
  const HeadWeights back = to_problem_coordinates(p, r, sent);
  EXPECT_TRUE(back.W_q.isApprox(p.reference.W_q, 1e-12));
  EXPECT_TRUE(back.W_k.isApprox(p.reference.W_k, 1e-12));
  EXPECT_TRUE(back.W_V.isApprox(p.reference.W_V, 1e-12));
  const HeadWeights there = to_student_coordinates(p, r, p.reference);
  EXPECT_TRUE(there.W_q.isApprox(sent.W_q, 1e-12));
  EXPECT_TRUE(there.W_V.isApprox(sent.W_V, 1e-12));
}

TEST(Variant, ANewSecretReshufflesTheClass) {
  const Problem& p = variant_problem();
  int moved = 0;
  for (int k = 0; k < 20; ++k) {
    const std::string name = "student-" + std::to_string(k);
    moved += derive_relabeling(kVariantSecret, p, name) !=
             derive_relabeling("another secret of at least 32 bytes....", p, name);
  }
  EXPECT_GE(moved, 10);
}

TEST(Variant, EditingTheEmbeddingsValuesKeepsEachStudentsVariant) {
  nlohmann::json edited = variant_problem_json();
  edited["W_E"][0][0] = 2;  // values changed, the shapes kept (the reference still passes)
  edited["W_P"][2][0] = 2;
  const Problem q = loaded_or_abort(edited);
  for (const char* student : {"alice", "student-1", "student-2", "student-3"}) {
    EXPECT_EQ(derive_relabeling(kVariantSecret, q, student),
              derive_relabeling(kVariantSecret, variant_problem(), student))
        << student;
  }
}

TEST(Variant, WithoutASecretOrVariantsEveryStudentGetsTheProblemAsWritten) {
  EXPECT_TRUE(derive_relabeling("", variant_problem(), "alice").is_identity());
  EXPECT_TRUE(
      derive_relabeling(kVariantSecret, testing::bundled("first-position"), "alice").is_identity());
  EXPECT_EQ(variant_id(Relabeling{}), "");
}

TEST(Variant, TheIdRoundTripsAndSpellsTheRelabeling) {
  const Problem& p = variant_problem();
  for (int k = 0; k < 30; ++k) {
    const Relabeling r = derive_relabeling(kVariantSecret, p, "student-" + std::to_string(k));
    const Result<Relabeling> read = parse_variant_id(variant_id(r), p);
    ASSERT_TRUE(read) << variant_id(r) << ": " << read.error().message;
    EXPECT_EQ(*read, r);
  }
  const Relabeling r{{2, 0, 1}, {0, 2, 1}, {1, 0}};
  EXPECT_EQ(variant_id(r), "f2.0.1-s0.2.1-o1.0");
}

TEST(Variant, MalformedIdsAreRefusedAsValues) {
  const Problem& p = variant_problem();
  for (const char* id :
       {"", "f0.1.2", "f0.1.2-s0.0.0", "s0.0.0-f0.1.2-o0.1", "f0.1.2-s0.0.0-o0.1-o0.1",
        "f0.1.1-s0.0.0-o0.1", "f0.1.3-s0.0.0-o0.1", "f0.1-s0.0.0-o0.1", "f0.1.2-s0.0.3-o0.1",
        "f0.1.2-s0.0-o0.1", "f0.1.2-s0.0.0-o0.0", "f00.1.2-s0.0.0-o0.1", "f+0.1.2-s0.0.0-o0.1",
        "f0..1.2-s0.0.0-o0.1", "f0.1.2.-s0.0.0-o0.1", "f0.1.2-s0.0.0-o0.1-", "f0.1.2-s0.0.0-o0.1x",
        "f99999999999999999999.1.2-s0.0.0-o0.1", "x"}) {
    const Result<Relabeling> read = parse_variant_id(id, p);
    ASSERT_FALSE(read) << id;
    EXPECT_EQ(read.error().code, ErrorCode::kWrongShape) << id;
    EXPECT_EQ(read.error().field, "variant") << id;
  }
  EXPECT_EQ(parse_variant_id(std::string(limits::kMaxVariantIdBytes + 1, 'f'), p).error().message,
            "is not a variant of this problem: longer than " +
                std::to_string(limits::kMaxVariantIdBytes) + " bytes");
  EXPECT_FALSE(parse_variant_id("f0.1.2", testing::bundled("first-position")));
  EXPECT_TRUE(parse_variant_id("f0.1.2-s0.0.0-o0.1", p));
}

TEST(Variant, TheFeatureNamesFollowTheirRows) {
  const Problem& p = variant_problem();
  const Relabeling r{{2, 0, 1}, {}, {}};
  nlohmann::json j = variant_problem_json();
  j["variants"] = {{"permute_features", true}};
  const Problem q = loaded_or_abort(j);
  const Problem student = student_problem(q, r);
  EXPECT_EQ(student.feature_names, (std::vector<std::string>{"start", "vowel", "consonant"}));
  EXPECT_EQ(student.variant, "f2.0.1");
  EXPECT_EQ(p.feature_names, (std::vector<std::string>{"vowel", "consonant", "start"}));
}

// Each bad value of `variants` or `feature_names` is refused with the file, field and reason.
std::vector<Defect> variant_file_defects(const nlohmann::json& j) {
  auto loaded = load_problem_text(j.dump(), "first-position-variants.json");
  auto* defects = std::get_if<std::vector<Defect>>(&loaded);
  return defects != nullptr ? *defects : std::vector<Defect>{};
}

TEST(Variant, BadVariantFieldsAreRefusedWithFileFieldAndReason) {
  struct Case {
    const char* path;  // a JSON pointer into the file
    nlohmann::json value;
    const char* text;  // Defect::to_string()
  };
  const std::vector<Case> cases = {
      {"/variants/feature_scales",
       {1, 0},
       "first-position-variants.json: variants.feature_scales[1]: must be a number greater than "
       "0 and at most 1e6; it is 0"},
      {"/variants/feature_scales",
       {-2},
       "first-position-variants.json: variants.feature_scales[0]: must be a number greater than "
       "0 and at most 1e6; it is -2"},
      {"/variants/feature_scales", nlohmann::json::array(),
       "first-position-variants.json: variants.feature_scales: must be a list of 1 to 16 "
       "numbers greater than 0 (each row of W_E is multiplied by one); it has 0"},
      {"/variants/feature_scales",
       {"2"},
       "first-position-variants.json: variants.feature_scales[0]: must be a number greater "
       "than 0; it is a string"},
      {"/variants/permute_features", 1,
       "first-position-variants.json: variants.permute_features: must be true or false; it is "
       "a number"},
      {"/variants/shuffle", true,
       "first-position-variants.json: variants.shuffle: unknown field; the fields are listed "
       "in the authoring guide (problems/README.md)"},
      {"/variants",
       {1},
       "first-position-variants.json: variants: must be an object with permute_features, "
       "permute_outputs and feature_scales (each optional); it is an array"},
      {"/feature_names",
       {"vowel", "consonant"},
       "first-position-variants.json: feature_names: must be a list of 3 names (one per row "
       "of W_E); it has 2"},
      {"/feature_names",
       {"vowel", 2, "start"},
       "first-position-variants.json: feature_names[1]: must be a string; it is a number"},
      {"/feature_names",
       {"vowel", "", "start"},
       "first-position-variants.json: feature_names[1]: must be 1 to 64 bytes long (a row's "
       "label); it is 0"},
  };
  for (const Case& c : cases) {
    nlohmann::json j = variant_problem_json();
    j[nlohmann::json::json_pointer(c.path)] = c.value;
    const std::vector<Defect> defects = variant_file_defects(j);
    ASSERT_EQ(defects.size(), 1u) << c.path << " " << c.value.dump();
    EXPECT_EQ(defects[0].to_string(), c.text);
  }
}

TEST(Variant, AStatementThatCountsRowsIsAWarningWhenRowsAreReordered) {
  nlohmann::json j = variant_problem_json();
  j["statement"] = "Put a large weight on Row 3 of W_k.";
  const auto warned = [](const Problem& p) {
    for (const ProblemWarning& w : problem_warnings(p)) {
      if (w.field == "statement") return w.message;
    }
    return std::string();
  };
  EXPECT_EQ(warned(loaded_or_abort(j)).substr(0, 22), "speaks of \"Row 3\" whil");
  j["statement"] = "Read the first feature.";
  EXPECT_NE(warned(loaded_or_abort(j)), "");
  j["statement"] = "Read the start feature, named beside W_E.";
  EXPECT_EQ(warned(loaded_or_abort(j)), "");
  j["statement"] = "Put a large weight on row 3 of W_k.";
  j.erase("variants");
  EXPECT_EQ(warned(loaded_or_abort(j)), "");
}

// A named mistake's message and hint are shown to every student as written: the same rule.
TEST(Variant, AMistakesHintThatCountsColumnsIsAWarningWhenRowsAreReordered) {
  nlohmann::json j = variant_problem_json();
  j["mistakes"] = nlohmann::json::array(
      {{{"name", "any_consonant"},
        {"expected", "any(consonant) ? [1, 0] : [0, 0]"},
        {"message", "Your head answers for any consonant so far, not the first letter."},
        {"hint", "Put the key's weight in column 3 of W_k."}}});
  std::vector<std::string> fields;
  for (const ProblemWarning& w : problem_warnings(loaded_or_abort(j))) fields.push_back(w.field);
  EXPECT_NE(std::find(fields.begin(), fields.end(), "mistakes[0].hint"), fields.end());
  EXPECT_EQ(std::find(fields.begin(), fields.end(), "mistakes[0].message"), fields.end());
  j["mistakes"][0]["hint"] = "Put the key's weight on the start feature.";
  fields.clear();
  for (const ProblemWarning& w : problem_warnings(loaded_or_abort(j))) fields.push_back(w.field);
  EXPECT_EQ(std::find(fields.begin(), fields.end(), "mistakes[0].hint"), fields.end());
}

TEST(Variant, ExpectedWithOutputsReordersEachOutputOnly) {
  const Problem& p = variant_problem();
  const std::vector<std::size_t> order = {1, 0};
  const Expected swapped = p.expected->with_outputs(order);
  const Expected back = swapped.with_outputs(order);
  const TokenString s = testing::tokens_of(p, "bae");
  std::vector<int> counts(p.classes.names.size());
  for (std::size_t i = 1; i <= s.size(); ++i) {
    const std::span<const int> prefix(s.data(), i);
    count_classes(p.classes, prefix, counts);
    double a[2], b[2], c[2];
    ASSERT_FALSE(p.expected->evaluate({prefix, counts}, a));
    ASSERT_FALSE(swapped.evaluate({prefix, counts}, b));
    ASSERT_FALSE(back.evaluate({prefix, counts}, c));
    EXPECT_EQ(b[0], a[1]);
    EXPECT_EQ(b[1], a[0]);
    EXPECT_EQ(c[0], a[0]);
    EXPECT_EQ(c[1], a[1]);
  }
}

}  // namespace
}  // namespace headgrader

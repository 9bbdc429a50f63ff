// Copied heads (API.md §15, headgrader/integrity.h): literal copies, copies rescaled or
// relabeled, and failing heads that are another student's head for another variant. The heads
// are the handout's Exercise 2 head (W_q = [1 1], W_k = [0 5], W_V = [[1, 0], [0, 1]]) and
// changes of it whose effect on the scores is worked out here by hand, not by the code.
#include "headgrader/integrity.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace headgrader {
namespace {

Matrix integrity_matrix(std::initializer_list<std::initializer_list<double>> values) {
  Matrix m(static_cast<Eigen::Index>(values.size()),
           static_cast<Eigen::Index>(values.begin()->size()));
  Eigen::Index i = 0;
  for (const auto& row : values) {
    Eigen::Index j = 0;
    for (const double x : row) m(i, j++) = x;
    ++i;
  }
  return m;
}

HeadWeights handout_head() {
  return {integrity_matrix({{1, 1}}), integrity_matrix({{0, 5}}),
          integrity_matrix({{1, 0}, {0, 1}})};
}

IntegrityEntry head_entry(std::string student, std::string id, const HeadWeights& head,
                          bool passed = true, std::string variant = "") {
  return {std::move(student), std::move(id), std::move(variant), passed, head, head};
}

std::vector<std::string> student_list(std::initializer_list<const char*> list) {
  return {list.begin(), list.end()};
}

TEST(CompareHeads, StudentsWhoSentTheSameMatricesShareAnIdenticalGroup) {
  const std::vector<IntegrityEntry> entries = {head_entry("bob", "s2", handout_head()),
                                               head_entry("ada", "s1", handout_head()),
                                               head_entry("cy", "s3", handout_head())};
  const IntegrityReport report = compare_heads(entries, handout_head());
  ASSERT_EQ(report.shared.size(), 1u);
  EXPECT_EQ(report.shared[0].kind, SharedHeads::Kind::kIdentical);
  EXPECT_EQ(report.shared[0].students, student_list({"ada", "bob", "cy"}));
  EXPECT_EQ(report.shared[0].submission_ids, student_list({"s1", "s2", "s3"}));
  EXPECT_TRUE(report.shared[0].matches_reference);
  EXPECT_TRUE(report.other_variant.empty());
}

TEST(CompareHeads, OneStudentSendingTheSameHeadTwiceSharesItWithNoOne) {
  HeadWeights other = handout_head();
  other.W_k(0, 1) = 7;
  const std::vector<IntegrityEntry> entries = {head_entry("ada", "s1", handout_head()),
                                               head_entry("ada", "s2", handout_head()),
                                               head_entry("bob", "s3", other)};
  EXPECT_TRUE(compare_heads(entries, handout_head()).shared.empty());
}

TEST(CompareHeads, ACopyWithWqAndWkRescaledIsTheSameHead) {
  // Every score is (c W_q r)·(W_k r' / c) = (W_q r)·(W_k r'): bob's head cannot be told from
  // ada's by any string. 3 and 1/3 are not exact in binary, so the products differ in their
  // last bits; the rounding of the canonical key absorbs it.
  HeadWeights scaled = handout_head();
  scaled.W_q *= 3;
  scaled.W_k /= 3;
  // Negated too: (−W_q r)·(−W_k r') is the same score.
  HeadWeights negated = handout_head();
  negated.W_q = -negated.W_q;
  negated.W_k = -negated.W_k;
  const std::vector<IntegrityEntry> entries = {head_entry("ada", "s1", handout_head(), true),
                                               head_entry("bob", "s2", scaled, true),
                                               head_entry("cy", "s3", negated, true)};
  const IntegrityReport report = compare_heads(entries, std::nullopt);
  ASSERT_EQ(report.shared.size(), 1u);
  EXPECT_EQ(report.shared[0].kind, SharedHeads::Kind::kSameAfterRelabeling);
  EXPECT_EQ(report.shared[0].students, student_list({"ada", "bob", "cy"}));
  EXPECT_FALSE(report.shared[0].matches_reference);  // no reference given
}

TEST(CompareHeads, RowsOfWqAndWkMixedByAnInvertibleMatrixAreTheSameHead) {
  // n_q = 2: W_q → A W_q and W_k → A⁻ᵀ W_k leave W_qᵀ W_k = W_qᵀ Aᵀ A⁻ᵀ W_k unchanged.
  const HeadWeights ada{integrity_matrix({{1, 1}, {0, 2}}), integrity_matrix({{0, 5}, {1, 0}}),
                        integrity_matrix({{1, 0}, {0, 1}})};
  const Matrix A = integrity_matrix({{2, 1}, {1, 1}});              // det 1
  const Matrix A_inverse_t = integrity_matrix({{1, -1}, {-1, 2}});  // (A⁻¹)ᵀ, by hand
  const HeadWeights bob{A * ada.W_q, A_inverse_t * ada.W_k, ada.W_V};
  const IntegrityReport report =
      compare_heads(std::vector{head_entry("ada", "s1", ada), head_entry("bob", "s2", bob)}, ada);
  ASSERT_EQ(report.shared.size(), 1u);
  EXPECT_EQ(report.shared[0].kind, SharedHeads::Kind::kSameAfterRelabeling);
  EXPECT_TRUE(report.shared[0].matches_reference);
}

TEST(CompareHeads, ASharperKeyIsAnotherHead) {
  // W_k = [0 10] doubles every score: the attention differs, so it is not the same head.
  HeadWeights sharper = handout_head();
  sharper.W_k(0, 1) = 10;
  HeadWeights other_values = handout_head();
  other_values.W_V(0, 0) = 2;
  const std::vector<IntegrityEntry> entries = {head_entry("ada", "s1", handout_head()),
                                               head_entry("bob", "s2", sharper),
                                               head_entry("cy", "s3", other_values)};
  const IntegrityReport report = compare_heads(entries, handout_head());
  EXPECT_TRUE(report.shared.empty());
}

TEST(CompareHeads, ARelabeledCopyIsTheSameHeadOnceEachRelabelingIsUndone) {
  // bob's variant swaps the two features and doubles the new first one: W_E' = S P W_E with
  // P = [[0 1], [1 0]], S = diag(2, 1). A head W' on W_E' computes what W does on W_E when
  // W' S P = W, so bob's translation of ada's head is W' = W Pᵀ S⁻¹ (worked out here), and
  // its problem coordinates are W' S P again.
  const Matrix P = integrity_matrix({{0, 1}, {1, 0}});
  const Matrix S = integrity_matrix({{2, 0}, {0, 1}});
  const Matrix S_inverse = integrity_matrix({{0.5, 0}, {0, 1}});
  const HeadWeights ada = handout_head();
  HeadWeights bob_sent{ada.W_q * P.transpose() * S_inverse, ada.W_k * P.transpose() * S_inverse,
                       ada.W_V * P.transpose() * S_inverse};
  EXPECT_EQ(bob_sent.W_k,
            integrity_matrix({{2.5, 0}}));  // 5 on the consonant feature, now row 1, halved
  const HeadWeights bob_in_problem{bob_sent.W_q * S * P, bob_sent.W_k * S * P,
                                   bob_sent.W_V * S * P};
  // cy has bob's variant too and sent ada's matrices as they are: in cy's coordinates they are
  // another head (W S P), which fails there.
  const HeadWeights cy_in_problem{ada.W_q * S * P, ada.W_k * S * P, ada.W_V * S * P};
  const std::vector<IntegrityEntry> entries = {
      head_entry("ada", "s1", ada, true, "v-ada"),
      {"bob", "s2", "v-bob", true, bob_sent, bob_in_problem},
      {"cy", "s3", "v-bob", false, ada, cy_in_problem}};
  const IntegrityReport report = compare_heads(entries, ada);
  ASSERT_EQ(report.shared.size(), 2u);
  // ada and cy sent the same matrices; ada and bob compute the same head once relabeled.
  EXPECT_EQ(report.shared[0].kind, SharedHeads::Kind::kIdentical);
  EXPECT_EQ(report.shared[0].students, student_list({"ada", "cy"}));
  EXPECT_FALSE(report.shared[0].matches_reference);  // for cy, ada's matrices are W S P
  EXPECT_EQ(report.shared[1].kind, SharedHeads::Kind::kSameAfterRelabeling);
  EXPECT_EQ(report.shared[1].students, student_list({"ada", "bob"}));
  EXPECT_TRUE(report.shared[1].matches_reference);
  ASSERT_EQ(report.other_variant.size(), 1u);
  EXPECT_EQ(report.other_variant[0].student, "cy");
  EXPECT_EQ(report.other_variant[0].submission_id, "s3");
  EXPECT_EQ(report.other_variant[0].matches_student, "ada");
}

TEST(CompareHeads, AFailingHeadOfTheSameVariantIsNoOtherVariantCopy) {
  const std::vector<IntegrityEntry> entries = {
      head_entry("ada", "s1", handout_head(), true, "v1"),
      head_entry("bob", "s2", handout_head(), false, "v1"),
      head_entry("cy", "s3", handout_head(), false, "v2"),
      head_entry("dee", "s4", handout_head(), false, "v1")};
  const IntegrityReport report = compare_heads(entries, std::nullopt);
  // bob's and dee's head is ada's, of their own variant; cy's is ada's (and bob's, dee's) of
  // another: the first other student by name is ada.
  ASSERT_EQ(report.other_variant.size(), 3u);
  EXPECT_EQ(report.other_variant[0].student, "bob");
  EXPECT_EQ(report.other_variant[0].matches_student, "cy");
  EXPECT_EQ(report.other_variant[1].student, "cy");
  EXPECT_EQ(report.other_variant[1].matches_student, "ada");
  EXPECT_EQ(report.other_variant[2].student, "dee");
  EXPECT_EQ(report.other_variant[2].matches_student, "cy");
}

TEST(CompareHeads, HonestHeadsOfAClassShareNothing) {
  // 200 students, each with a key of their own (W_k = [0 k], k = 1.00 … 2.99) and a third of
  // them with the values of the handout scaled: no two compute the same head.
  std::vector<IntegrityEntry> entries;
  for (int k = 0; k < 200; ++k) {
    HeadWeights head = handout_head();
    head.W_k(0, 1) = 1 + k / 100.0;
    if (k % 3 == 0) head.W_V *= 1.5;
    entries.push_back(head_entry("s" + std::to_string(k), "id" + std::to_string(k), head,
                                 k % 2 == 0, k % 2 == 0 ? "even" : "odd"));
  }
  const IntegrityReport report = compare_heads(entries, handout_head());
  EXPECT_TRUE(report.shared.empty());
  EXPECT_TRUE(report.other_variant.empty());
}

TEST(CompareHeads, TheReportDoesNotDependOnTheOrderOfTheRecords) {
  HeadWeights scaled = handout_head();
  scaled.W_q *= 4;
  scaled.W_k /= 4;
  std::vector<IntegrityEntry> entries;
  for (int i = 0; i < 12; ++i) {
    entries.push_back(head_entry("st" + std::to_string(i % 5), "id" + std::to_string(i),
                                 i % 3 == 0 ? scaled : handout_head(), i % 2 == 0,
                                 i % 4 == 0 ? "a" : "b"));
  }
  const IntegrityReport first = compare_heads(entries, handout_head());
  std::mt19937 shuffle(7);
  for (int round = 0; round < 5; ++round) {
    std::shuffle(entries.begin(), entries.end(), shuffle);
    const IntegrityReport again = compare_heads(entries, handout_head());
    ASSERT_EQ(again.shared.size(), first.shared.size());
    for (std::size_t g = 0; g < first.shared.size(); ++g) {
      EXPECT_EQ(again.shared[g].kind, first.shared[g].kind);
      EXPECT_EQ(again.shared[g].students, first.shared[g].students);
      EXPECT_EQ(again.shared[g].submission_ids, first.shared[g].submission_ids);
    }
    ASSERT_EQ(again.other_variant.size(), first.other_variant.size());
    for (std::size_t k = 0; k < first.other_variant.size(); ++k) {
      EXPECT_EQ(again.other_variant[k].submission_id, first.other_variant[k].submission_id);
      EXPECT_EQ(again.other_variant[k].matches_student, first.other_variant[k].matches_student);
    }
  }
  EXPECT_FALSE(first.shared.empty());
  EXPECT_FALSE(first.other_variant.empty());
}

}  // namespace
}  // namespace headgrader

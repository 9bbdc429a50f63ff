// Problem files (API.md §2): the defects of the alphabet and classes, the embeddings W_E and
// W_P, and the matrices submitted, given and in the reference, each with its message pinned
// verbatim. Every case breaks one thing of problem_loading_support.h's small problem.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "headgrader/problem.h"
#include "problem_loading_support.h"

namespace headgrader {
namespace {

using testing::defects_of;
using testing::tiny_problem;
using Lines = std::vector<std::string>;

// --- alphabet and classes --------------------------------------------------------------------

TEST(ProblemLoading, AlphabetCharacterTwice) {
  auto p = tiny_problem();
  p["alphabet"] = "aba";
  p["W_E"] = Json::parse("[[1, 0, 1], [0, 1, 0]]");
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: alphabet: \"a\" appears twice; each character must appear once"});
}

TEST(ProblemLoading, ClassCharacterNotInAlphabet) {
  auto p = tiny_problem();
  p["classes"]["vowel"] = "ax";
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: classes.vowel: holds \"x\", which is not in the alphabet"});
}

TEST(ProblemLoading, ClassNamedByAKeyword) {
  auto p = tiny_problem();
  p["classes"]["count"] = "a";
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: classes.count: is not a usable class name: it must start with a "
                  "letter or \"_\", continue with letters, digits or \"_\", and not be a keyword "
                  "(is, any, all, count, mean, at, pos, and, or, not)"});
}

// --- W_E and W_P -----------------------------------------------------------------------------

TEST(ProblemLoading, EmbeddingNeedsOneColumnPerCharacter) {
  auto p = tiny_problem();
  p["W_E"] = Json::parse("[[1, 0, 0], [0, 1, 0]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: W_E: must have 2 columns (one per alphabet "
                                 "character); it has 3"});
}

TEST(ProblemLoading, RaggedEmbedding) {
  auto p = tiny_problem();
  p["W_E"] = Json::parse("[[1, 0], [0]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: W_E: row 2 of W_E has 1 number but row 1 has 2; "
                                 "all rows must be the same length"});
}

TEST(ProblemLoading, PositionEmbeddingNeedsTheRowsOfW_E) {
  auto p = tiny_problem();
  p["W_P"] = Json::parse("[[1, 0, 0]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: W_P: must have 2 rows (n_e, as W_E has); it has 1"});
}

TEST(ProblemLoading, PositionEmbeddingNeedsAColumnPerPosition) {
  auto p = tiny_problem();
  p["W_P"] = Json::parse("[[0, 0], [0, 0]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: W_P: has 2 columns (positions) but "
                                 "strings.max_length is 3; it needs one column per position"});
}

// --- submit, given, reference ----------------------------------------------------------------

TEST(ProblemLoading, SubmitHoldsOnlyTheThreeNames) {
  auto p = tiny_problem();
  p["submit"].push_back("W_o");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: submit: may hold only \"W_q\", \"W_k\" and "
                                 "\"W_V\"; it holds \"W_o\""});
}

TEST(ProblemLoading, SubmitNameTwice) {
  auto p = tiny_problem();
  p["submit"].push_back("W_q");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: submit: W_q is listed twice"});
}

TEST(ProblemLoading, MatrixBothGivenAndSubmitted) {
  auto p = tiny_problem();
  p["given"] = Json::parse(R"({"W_V": [[1, 0], [0, 1]]})");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: given.W_V: is also in submit; a matrix is either "
                                 "submitted or given"});
}

TEST(ProblemLoading, MatrixNeitherGivenNorSubmitted) {
  auto p = tiny_problem();
  p["submit"] = Json::parse(R"(["W_q", "W_k"])");
  p["reference"].erase("W_V");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: given: W_V is neither submitted nor given; add it "
                                 "to submit or give it here"});
}

TEST(ProblemLoading, GivenMatrixLoads) {
  auto p = tiny_problem();
  p["submit"] = Json::parse(R"(["W_q", "W_k"])");
  p["given"] = Json::parse(R"({"W_V": [[1, 0], [0, 1]]})");
  p["reference"].erase("W_V");
  EXPECT_EQ(defects_of(p), Lines{"loaded"});
}

TEST(ProblemLoading, ReferenceMissingASubmittedMatrix) {
  auto p = tiny_problem();
  p["reference"].erase("W_k");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: reference: W_k is missing"});
}

TEST(ProblemLoading, ReferenceHoldingAMatrixNotSubmitted) {
  auto p = tiny_problem();
  p["submit"] = Json::parse(R"(["W_q", "W_k"])");
  p["given"] = Json::parse(R"({"W_V": [[1, 0], [0, 1]]})");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: reference.W_V: is not in submit; the reference "
                                 "holds exactly the submitted matrices"});
}

TEST(ProblemLoading, ReferenceWithTheWrongNumberOfColumns) {
  auto p = tiny_problem();
  p["reference"]["W_q"] = Json::parse("[[1, 1, 1]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: reference.W_q: must have 2 columns (one per "
                                 "embedding feature, n_e = 2); it has 3"});
}

TEST(ProblemLoading, ReferenceQueryAndKeyRowsDiffer) {
  auto p = tiny_problem();
  p["reference"]["W_k"] = Json::parse("[[0, 5], [0, 0]]");
  EXPECT_EQ(defects_of(p), Lines{"tiny.json: reference.W_k: has 2 rows but reference.W_q has 1; "
                                 "queries and keys share the size n_q"});
}

TEST(ProblemLoading, ValueRowsMustMatchTheExpectedLength) {
  auto p = tiny_problem();
  p["reference"]["W_V"] = Json::parse("[[1, 0], [0, 1], [0, 0]]");
  EXPECT_EQ(defects_of(p),
            Lines{"tiny.json: expected: yields vectors of length 2 but reference.W_V has 3 rows; "
                  "the head's output (one value per row of W_V) must have the length of the "
                  "expected vector"});
}

}  // namespace
}  // namespace headgrader

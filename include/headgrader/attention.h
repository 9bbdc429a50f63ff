// The graded head of API.md §1, step by step as in the handout: embeddings r_i, then
// Q, K, V, scores = scale · Q Kᵀ, the causal mask, a row softmax and output = attention · V.
// AttentionTrace keeps every intermediate matrix so a student can check each step by hand.
// Thread-safety: pure functions of their arguments.
#pragma once

#include <Eigen/Dense>
#include <optional>
#include <span>
#include <string_view>

namespace headgrader {

using Matrix = Eigen::MatrixXd;  // column-major doubles; rows are tokens where it says so

// The problem's part of the head: what the student does not choose.
struct HeadSpec {
  Matrix W_E;                 // n_e × |alphabet|
  std::optional<Matrix> W_P;  // n_e × P, column i-1 for position i
  double scale = 1.0;
  bool causal = true;
};

// The three projections, whichever side (student or problem) supplied them.
struct HeadWeights {
  Matrix W_q;  // n_q × n_e
  Matrix W_k;  // n_q × n_e
  Matrix W_V;  // n_v × n_e

  // By canonical name "W_q", "W_k" or "W_V" (precondition: one of those).
  Matrix& by_name(std::string_view name) { return name == "W_q" ? W_q : name == "W_k" ? W_k : W_V; }
  const Matrix& by_name(std::string_view name) const {
    return name == "W_q" ? W_q : name == "W_k" ? W_k : W_V;
  }
};

struct AttentionTrace {
  Matrix embeddings;     // L × n_e, row i = r_i
  Matrix Q;              // L × n_q
  Matrix K;              // L × n_q
  Matrix V;              // L × n_v
  Matrix scores;         // L × L, scale · Q Kᵀ
  Matrix masked_scores;  // L × L, −∞ where j > i (when causal)
  Matrix attention;      // L × L, row softmax of masked_scores; masked entries exactly 0
  Matrix output;         // L × n_v, attention · V
};

// Runs the head on `tokens` (indices into the alphabet, L ≥ 1). Preconditions: shapes agree
// (checked by problem loading and submission validation), L ≤ P when W_P is present.
// Finite inputs within the contract's limits give finite outputs: the softmax subtracts the
// row maximum, so every unmasked row has a weight of exactly 1 at its maximum.
AttentionTrace run_head(const HeadSpec& spec, const HeadWeights& weights,
                        std::span<const int> tokens);

// run_head(spec, weights, tokens).output, the same bits, without keeping the trace: what
// grading needs for every example and every string it runs on its own.
Matrix head_output(const HeadSpec& spec, const HeadWeights& weights, std::span<const int> tokens);

// Row i of `scores` turned into weights over j ≤ i (or all j when !causal), in place into
// `weights` (same length as the row); masked entries get exactly 0.
void masked_softmax_row(const double* scores, int length, int last_visible, double* weights);

}  // namespace headgrader

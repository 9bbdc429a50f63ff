// The head of API.md §1, in the handout's steps. Matrices hold tokens as rows, as the
// handout lays them out (Q is L × n_q). The arithmetic is head_math's plain loops with a
// fixed summation order and portable_exp, so every machine computes the same bits
// (Eigen's vectorised kernels differ between instruction sets); Eigen is only storage here.
#include "headgrader/attention.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "head_math.h"
#include "portable_exp.h"

namespace headgrader {
namespace {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Row i of the result is W r_i, for each row r_i of R.
RowMajor project_rows(const RowMajor& R, const Matrix& W) {
  RowMajor out(R.rows(), W.rows());
  for (Eigen::Index i = 0; i < R.rows(); ++i)
    head_math::project(W, R.row(i).data(), out.row(i).data());
  return out;
}

}  // namespace

void masked_softmax_row(const double* scores, int length, int last_visible, double* weights) {
  // Subtract the row maximum so exp never overflows and the largest weight is exactly
  // exp(0) = 1 before normalising: no Inf or NaN for any finite scores.
  double max_score = -std::numeric_limits<double>::infinity();
  for (int j = 0; j <= last_visible; ++j) max_score = std::max(max_score, scores[j]);
  double sum = 0;
  for (int j = 0; j <= last_visible; ++j) {
    weights[j] = portable_exp(scores[j] - max_score);
    sum += weights[j];
  }
  for (int j = 0; j <= last_visible; ++j) weights[j] /= sum;
  // Masked keys get exactly zero weight, not exp(−huge).
  for (int j = last_visible + 1; j < length; ++j) weights[j] = 0;
}

AttentionTrace run_head(const HeadSpec& spec, const HeadWeights& weights,
                        std::span<const int> tokens) {
  const int L = static_cast<int>(tokens.size());

  // Step 1: embeddings r_i = W_E[:, tok(s_i)] (+ W_P[:, i]), one row per token.   (L × n_e)
  RowMajor R(L, spec.W_E.rows());
  for (int i = 0; i < L; ++i) head_math::embed(spec, tokens[i], i, R.row(i).data());

  // Step 2: queries, keys and values, one row per token.        (L × n_q, L × n_q, L × n_v)
  const RowMajor Q = project_rows(R, weights.W_q);
  const RowMajor K = project_rows(R, weights.W_k);
  const RowMajor V = project_rows(R, weights.W_V);

  // Step 3: scores = scale · Q Kᵀ (no 1/sqrt(d): the contract's scale defaults to 1).  (L × L)
  RowMajor scores(L, L);
  for (int i = 0; i < L; ++i) {
    for (int j = 0; j < L; ++j) {
      scores(i, j) = head_math::score(Q.row(i).data(), K.row(j).data(), Q.cols(), spec.scale);
    }
  }

  // Step 4: causal mask, −∞ where the key comes after the query (j > i).
  RowMajor masked = scores;
  if (spec.causal) {
    for (int i = 0; i < L; ++i) {
      for (int j = i + 1; j < L; ++j) masked(i, j) = -std::numeric_limits<double>::infinity();
    }
  }

  // Step 5: softmax along each row; step 6: output = attention · V.       (L × L, L × n_v)
  RowMajor attention(L, L);
  RowMajor output(L, V.cols());
  for (int i = 0; i < L; ++i) {
    const int last_visible = spec.causal ? i : L - 1;
    masked_softmax_row(masked.row(i).data(), L, last_visible, attention.row(i).data());
    head_math::attend(
        attention.row(i).data(), last_visible, V.cols(), [&](int j) { return V.row(j).data(); },
        output.row(i).data());
  }

  return AttentionTrace{R, Q, K, V, scores, masked, attention, output};
}

Matrix head_output(const HeadSpec& spec, const HeadWeights& weights, std::span<const int> tokens) {
  const int L = static_cast<int>(tokens.size());
  const auto n_e = spec.W_E.rows(), n_q = weights.W_q.rows(), n_v = weights.W_V.rows();
  // Steps 1–2 as in run_head, row by row into flat buffers; then each output row from the
  // scores it can see (the masked ones get weight 0 and add nothing). One allocation for all
  // the buffers: this runs for every example of every grade.
  const auto size = [](auto n) { return static_cast<std::size_t>(n); };
  std::vector<double> buffer(size(n_e + 2 * L * n_q + L * n_v + 2 * L + n_v));
  double* const r = buffer.data();
  double* const Q = r + n_e;
  double* const K = Q + L * n_q;
  double* const V = K + L * n_q;
  double* const scores = V + L * n_v;
  double* const attention = scores + L;
  double* const row = attention + L;
  for (int i = 0; i < L; ++i) {
    head_math::embed(spec, tokens[i], i, r);
    head_math::project(weights.W_q, r, &Q[i * n_q]);
    head_math::project(weights.W_k, r, &K[i * n_q]);
    head_math::project(weights.W_V, r, &V[i * n_v]);
  }
  Matrix output(L, n_v);
  for (int i = 0; i < L; ++i) {
    const int last_visible = spec.causal ? i : L - 1;
    for (int j = 0; j <= last_visible; ++j) {
      scores[j] = head_math::score(&Q[i * n_q], &K[j * n_q], n_q, spec.scale);
    }
    masked_softmax_row(scores, L, last_visible, attention);
    head_math::attend(
        attention, last_visible, n_v, [&](int j) { return &V[j * n_v]; }, row);
    for (Eigen::Index c = 0; c < n_v; ++c) output(i, c) = row[c];
  }
  return output;
}

}  // namespace headgrader

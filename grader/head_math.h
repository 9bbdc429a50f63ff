// The head's arithmetic, one row at a time, shared by run_head (whole matrices, for traces)
// and the prefix walk of grading (one new row per prefix). Both call exactly these
// functions, so a row computed either way has the same bits: the grade and the trace a
// student sees always agree.
#pragma once

#include <limits>

#include "headgrader/attention.h"

namespace headgrader::head_math {

// r = W_E[:, token] + W_P[:, position]   (position 0-based; the W_P term only when present)
inline void embed(const HeadSpec& spec, int token, int position, double* r) {
  for (Eigen::Index e = 0; e < spec.W_E.rows(); ++e) {
    r[e] = spec.W_E(e, token) + (spec.W_P ? (*spec.W_P)(e, position) : 0.0);
  }
}

// out = W r, summed over embedding features in order.
inline void project(const Matrix& W, const double* r, double* out) {
  for (Eigen::Index a = 0; a < W.rows(); ++a) {
    double sum = 0;
    for (Eigen::Index e = 0; e < W.cols(); ++e) sum += W(a, e) * r[e];
    out[a] = sum;
  }
}

// scale · (q · k)
inline double score(const double* q, const double* k, Eigen::Index n_q, double scale) {
  double dot = 0;
  for (Eigen::Index a = 0; a < n_q; ++a) dot += q[a] * k[a];
  return scale * dot;
}

// out[c] = Σ_{j ≤ last} attention[j] · value(j)[c], keys in order. `value(j)` returns a
// pointer to row j of V.
template <typename ValueRow>
inline void attend(const double* attention, int last, Eigen::Index n_v, ValueRow value,
                   double* out) {
  for (Eigen::Index c = 0; c < n_v; ++c) {
    double sum = 0;
    for (int j = 0; j <= last; ++j) sum += attention[j] * value(j)[c];
    out[c] = sum;
  }
}

}  // namespace headgrader::head_math

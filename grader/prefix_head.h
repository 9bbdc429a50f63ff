// The head along the current prefix of a depth-first walk (prefix_walk.h), for heads whose
// rows depend on position (W_P): row d-1 of each matrix belongs to position d, and extending
// to depth d computes only that row, in the handout's steps, with the same functions and so
// the same bits as row d-1 of run_head(prefix). O(length) per prefix.
#pragma once

#include <Eigen/Dense>
#include <span>
#include <vector>

#include "headgrader/attention.h"

namespace headgrader {

class PrefixHead {
 public:
  PrefixHead(const HeadSpec& spec, const HeadWeights& weights, int max_depth);

  // The output row at the prefix's last position into `out` (n_v numbers). The rows of
  // the prefix's shorter prefixes must be current: the parent was extended just before.
  void extend(std::span<const int> prefix, double* out);

  // The same row computed from scratch, every shorter prefix again (for the rare rows the
  // fast path of a head without W_P cannot call).
  void exact(std::span<const int> prefix, double* out);

 private:
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  const HeadSpec& spec_;
  const HeadWeights& w_;
  RowMajor R_, Q_, K_, V_;  // row i: position i + 1 of the current prefix
  std::vector<double> scores_, attention_;
};

}  // namespace headgrader

// The head along the current prefix of a depth-first walk (prefix_walk.h), for heads whose
// rows depend on position (W_P): row d-1 of each matrix belongs to position d, and extending
// to depth d computes only that row, in the handout's steps, with the same functions and so
// the same bits as row d-1 of run_head(prefix). O(length) per prefix.
//
// Given the token groups (alike tokens, problem.h) and few enough (group, position) keys, a
// token's q, k and v are those of its key, so they, each query's scores and each softmax
// row's exponentials are computed once per key and kept: e^{S − m} depends only on the
// query's key, the key's and the key whose score is the row's maximum m. A row is then
// table lookups, one sum and the divisions, in run_head's order: the same bits, with no
// exponential once the tables are warm (the previous-letter problem at length 20 meets
// each of its 2 097 150 prefixes once but only a few hundred distinct rows of exponentials).
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <span>
#include <vector>

#include "headgrader/attention.h"

namespace headgrader {

class PrefixHead {
 public:
  // `group_of` (token → group, of `groups` groups) empty: no tables.
  PrefixHead(const HeadSpec& spec, const HeadWeights& weights, int max_depth,
             std::span<const int> group_of = {}, std::size_t groups = 0);

  // The output row at the prefix's last position into `out` (n_v numbers). The rows of
  // the prefix's shorter prefixes must be current: the parent was extended just before.
  void extend(std::span<const int> prefix, double* out);

  // The same row computed from scratch, every shorter prefix again (for the rare rows the
  // fast path of a head without W_P cannot call).
  void exact(std::span<const int> prefix, double* out);

 private:
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  void extend_from_tables(std::span<const int> prefix, double* out);
  // Key = position · groups + group. Filled on first use.
  const double* scores_of(std::size_t query);
  const double* exponentials_of(std::size_t query, std::size_t top, int position);

  const HeadSpec& spec_;
  const HeadWeights& w_;
  RowMajor R_, Q_, K_, V_;  // row i: position i + 1 of the current prefix
  std::vector<double> scores_, attention_;

  // The tables (empty without them).
  std::span<const int> group_of_;
  std::size_t groups_ = 0, keys_ = 0;
  RowMajor key_Q_, key_K_, key_V_;         // per key: its query, key and value
  std::vector<double> key_S_;              // [query * keys + key], made row by row
  std::vector<unsigned char> has_scores_;  // per query
  std::vector<int> exp_row_;               // [query * keys + top]: row in exps_, -1 none
  std::vector<double> exps_;               // rows of keys_ numbers
  std::vector<double> scratch_exps_;       // a row not kept
  std::vector<std::size_t> key_at_;        // the key at each position of the prefix
};

}  // namespace headgrader

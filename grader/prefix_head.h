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
//
// Most rows are far from the tolerance, so the judge asks first for fast_row, which costs
// O(1) per prefix in a depth-first walk instead of O(length). For each query key Q it keeps
// running sums over the current prefix, Z = Σ_j ê_Q(k_j) and N = Σ_j ê_Q(k_j) · v(k_j), with
// ê_Q(k) = e^{S(Q, k) − M_Q} against a fixed M_Q (the largest score Q can meet), so a
// parent's sums are its child's but for one term; the row is N / Z. Those differ from
// run_head's bits (another maximum, another order, one division per component), so the row
// is within margin() of the exact one, and a row that close to the tolerance is computed
// again exactly (exact_last, row_verdict.h). The sums of Q over positions 0..d are made when
// a row asks for them, from the deepest ones still current: about one step per row in a
// walk, at most the prefix's length for a string on its own.
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <cstdint>
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

  // Like extend, but the row only within margin() of extend's. False, with nothing done
  // but the prefix's last key noted, without the tables or when the fixed maximum is too far
  // above the row's own (see kMaxFastGap in prefix_head.cc): then call exact_last.
  bool fast_row(std::span<const int> prefix, double* out);
  // extend's row at the prefix's last position, after fast_row(prefix).
  void exact_last(std::span<const int> prefix, double* out);
  // For a head without the mask (the tables are then built over every position): makes `s`
  // the current string, placing anew only the positions from the first where it differs
  // from the one shown before (their running sums stale, the others kept). Then
  // fast_row_unmasked(i) is position i's row over every key of s, within margin() of
  // run_head(s)'s row i, or false where fast_row would decline (judge the string exactly).
  void show(std::span<const int> s);
  bool fast_row_unmasked(std::size_t i, double* out);

  // How far fast_row's numbers may be from extend's (the bound is derived in
  // prefix_head.cc, beside kMaxFastGap).
  double margin() const { return margin_; }

 private:
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  void extend_from_tables(std::span<const int> prefix, double* out);
  // The prefix's last key into key_at_, stamped as new (the running sums of its depth are
  // stale), and its row's exponentials (index: a key).
  void place(std::span<const int> prefix);
  const double* row_exponentials(std::span<const int> prefix);
  // For fast_row: query Q's ê_Q row (and M_Q) on first use, and its running sums over
  // positions 0..d of the current prefix: {maximum score, Z, N_1 … N_{n_v}}.
  const double* fast_exponentials(std::size_t query);
  const double* running_sums(int d, std::size_t query);
  // N / Z of query `query`'s running sums over positions 0..d; false as fast_row declines.
  bool row_from_sums(int d, std::size_t query, double* out);
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

  // fast_row's state (empty beyond limits::kMaxPrefixRunningNumbers).
  double margin_ = 0;
  std::size_t width_ = 0;              // numbers per running sum: 2 + n_v
  std::vector<double> fast_exps_;      // [query * keys + key]: ê_Q(key)
  std::vector<double> top_;            // per query: M_Q, NaN until its row is made
  std::vector<double> sums_;           // [(query * max_depth + d) * width_ …]
  std::vector<std::uint64_t> stamp_;   // [query * max_depth + d]: the placing they were made at
  std::vector<std::uint64_t> placed_;  // per depth: when its token was placed (0: never)
  std::uint64_t placings_ = 0;
  std::size_t shown_ = 0;  // positions placed of the current string
};

}  // namespace headgrader

#include "prefix_head.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "head_math.h"
#include "headgrader/limits.h"
#include "portable_exp.h"

namespace headgrader {

PrefixHead::PrefixHead(const HeadSpec& spec, const HeadWeights& w, int max_depth,
                       std::span<const int> group_of, std::size_t groups)
    : spec_(spec),
      w_(w),
      R_(max_depth, spec.W_E.rows()),
      Q_(max_depth, w.W_q.rows()),
      K_(max_depth, w.W_k.rows()),
      V_(max_depth, w.W_V.rows()),
      scores_(max_depth),
      attention_(max_depth) {
  const std::size_t keys = groups * static_cast<std::size_t>(max_depth);
  if (groups == 0 || keys > limits::kMaxPrefixTableKeys) return;
  group_of_ = group_of;
  groups_ = groups;
  keys_ = keys;
  key_at_.resize(static_cast<std::size_t>(max_depth));
  key_S_.resize(keys * keys);
  has_scores_.assign(keys, 0);
  exp_row_.assign(keys * keys, -1);
  scratch_exps_.resize(keys);
  // Each key's q, k and v: its group's first token at its position, as run_head computes a
  // row (the same functions, so the same bits for every token of the group).
  std::vector<int> first_token(groups, -1);
  for (std::size_t t = group_of.size(); t-- > 0;) first_token[group_of[t]] = static_cast<int>(t);
  key_Q_.resize(static_cast<Eigen::Index>(keys), w.W_q.rows());
  key_K_.resize(static_cast<Eigen::Index>(keys), w.W_k.rows());
  key_V_.resize(static_cast<Eigen::Index>(keys), w.W_V.rows());
  std::vector<double> r(static_cast<std::size_t>(spec.W_E.rows()));
  for (std::size_t key = 0; key < keys; ++key) {
    const auto row = static_cast<Eigen::Index>(key);
    head_math::embed(spec, first_token[key % groups], static_cast<int>(key / groups), r.data());
    head_math::project(w.W_q, r.data(), key_Q_.row(row).data());
    head_math::project(w.W_k, r.data(), key_K_.row(row).data());
    head_math::project(w.W_V, r.data(), key_V_.row(row).data());
  }
  width_ = 2 + static_cast<std::size_t>(w.W_V.rows());
  placed_.assign(static_cast<std::size_t>(max_depth), 0);
  if (static_cast<std::size_t>(max_depth) * keys * width_ > limits::kMaxPrefixRunningNumbers) {
    return;  // fast_row declines; every row is exact
  }
  fast_exps_.resize(keys * keys);
  top_.assign(keys, NAN);
  sums_.resize(static_cast<std::size_t>(max_depth) * keys * width_);
  stamp_.assign(static_cast<std::size_t>(max_depth) * keys, 0);
  margin_ = 1e-12 * (1 + key_V_.cwiseAbs().maxCoeff());
}

void PrefixHead::extend(std::span<const int> prefix, double* out) {
  if (keys_ != 0) return extend_from_tables(prefix, out);
  const int i = static_cast<int>(prefix.size()) - 1;
  // Steps 1–2: the new token's embedding, query, key and value.
  head_math::embed(spec_, prefix.back(), i, R_.row(i).data());
  head_math::project(w_.W_q, R_.row(i).data(), Q_.row(i).data());
  head_math::project(w_.W_k, R_.row(i).data(), K_.row(i).data());
  head_math::project(w_.W_V, R_.row(i).data(), V_.row(i).data());
  // Step 3: its scores against every key it sees (step 4: the mask hides the rest).
  for (int j = 0; j <= i; ++j) {
    scores_[j] = head_math::score(Q_.row(i).data(), K_.row(j).data(), Q_.cols(), spec_.scale);
  }
  // Step 5: softmax of the row; step 6: the attention-weighted values.
  masked_softmax_row(scores_.data(), i + 1, i, attention_.data());
  head_math::attend(
      attention_.data(), i, V_.cols(), [&](int j) { return V_.row(j).data(); }, out);
}

const double* PrefixHead::scores_of(std::size_t query) {
  double* s = &key_S_[query * keys_];
  if (!has_scores_[query]) {
    has_scores_[query] = 1;
    const auto q = static_cast<Eigen::Index>(query);
    for (std::size_t key = 0; key < keys_; ++key) {
      s[key] =
          head_math::score(key_Q_.row(q).data(), key_K_.row(static_cast<Eigen::Index>(key)).data(),
                           key_Q_.cols(), spec_.scale);
    }
  }
  return s;
}

const double* PrefixHead::exponentials_of(std::size_t query, std::size_t top, int position) {
  int& row = exp_row_[query * keys_ + top];
  if (row >= 0) return &exps_[static_cast<std::size_t>(row) * keys_];
  double* e = scratch_exps_.data();
  if (exps_.size() < limits::kPrefixExpRowsPerQuery * keys_ * keys_) {
    row = static_cast<int>(exps_.size() / keys_);
    exps_.resize(exps_.size() + keys_, 0.0);
    e = &exps_[static_cast<std::size_t>(row) * keys_];
  }
  const double* s = scores_of(query);
  // masked_softmax_row's step: e^{s − max}, for the keys a query at `position` sees.
  const std::size_t seen = static_cast<std::size_t>(position + 1) * groups_;
  for (std::size_t key = 0; key < seen; ++key) e[key] = portable_exp(s[key] - s[top]);
  return e;
}

void PrefixHead::place(std::span<const int> prefix) {
  const std::size_t i = prefix.size() - 1;
  key_at_[i] =
      i * groups_ + static_cast<std::size_t>(group_of_[static_cast<std::size_t>(prefix.back())]);
  placed_[i] = ++placings_;
  shown_ = i + 1;
}

void PrefixHead::show(std::span<const int> s) {
  if (keys_ == 0) return;
  std::size_t same = 0;  // the positions s shares with the string shown before
  while (same < std::min(shown_, s.size()) &&
         key_at_[same] == same * groups_ + static_cast<std::size_t>(
                                               group_of_[static_cast<std::size_t>(s[same])])) {
    ++same;
  }
  for (std::size_t d = same; d < s.size(); ++d) place(s.first(d + 1));
  shown_ = s.size();
}

const double* PrefixHead::row_exponentials(std::span<const int> prefix) {
  const int i = static_cast<int>(prefix.size()) - 1;
  const std::size_t query = key_at_[static_cast<std::size_t>(i)];
  const double* s = scores_of(query);
  // Step 5 as masked_softmax_row does it: first the maximum.
  std::size_t top = key_at_[0];
  for (int j = 1; j <= i; ++j) {
    const std::size_t key = key_at_[static_cast<std::size_t>(j)];
    if (s[key] > s[top]) top = key;  // std::max keeps the first of equals: so does this
  }
  return exponentials_of(query, top, i);
}

void PrefixHead::extend_from_tables(std::span<const int> prefix, double* out) {
  place(prefix);
  const int i = static_cast<int>(prefix.size()) - 1;
  const double* e = row_exponentials(prefix);
  // The exponentials and their sum, the division, in masked_softmax_row's order.
  double sum = 0;
  for (int j = 0; j <= i; ++j) {
    attention_[j] = e[key_at_[static_cast<std::size_t>(j)]];
    sum += attention_[j];
  }
  for (int j = 0; j <= i; ++j) attention_[j] /= sum;
  // Step 6.
  head_math::attend(
      attention_.data(), i, key_V_.cols(),
      [&](int j) { return key_V_.row(static_cast<Eigen::Index>(key_at_[j])).data(); }, out);
}

void PrefixHead::exact_last(std::span<const int> prefix, double* out) {
  // With the tables only the last row is computed again: the keys before it are current.
  if (keys_ != 0) return extend_from_tables(prefix, out);
  extend(prefix, out);
}

// How far fast_row's row may be from run_head's. Both use the same scores ŝ_j; let y be the
// real-number row Σ_j w_j v_j, w_j = e^{ŝ_j − m} / Σ_k e^{ŝ_k − m} (m the row's maximum).
//   - fast_row's ê_j = e^{ŝ_j − M_Q} has a relative error of at most 2⁻⁵³·|ŝ_j − M_Q| (the
//     subtraction) plus 1 ulp (portable_exp). Weighted by w_j, Σ_j w_j·|ŝ_j − M_Q| ≤ G + n/e,
//     with G = M_Q − m and n ≤ 64 terms (w_j·(m − ŝ_j) ≤ e^{−(m − ŝ_j)}·(m − ŝ_j) ≤ 1/e), and the
//     two sums of n terms err by at most n·2⁻⁵³ of their magnitude each: the row is within
//     2⁻⁵³·(2·(G + 24 + 2) + 2·64)·max|v| of y, under 1.5e-13·max|v| when G ≤ 500. Terms that
//     underflow are below e^{−700} of a sum Z ≥ e^{−500}: nothing.
//   - run_head's row (its own maximum, sequential sums, a division per position) is within
//     2⁻⁵³·(2·(24 + 2) + 2·64 + 2)·max|v| < 3e-14·max|v| of y.
// So margin() = 1e-12·(1 + max|v|) bounds their distance several times over. A row whose G is
// larger (a prefix whose scores are all far below the best its query could meet) is exact.
constexpr double kMaxFastGap = 500;

const double* PrefixHead::fast_exponentials(std::size_t query) {
  double* e = &fast_exps_[query * keys_];
  if (std::isnan(top_[query])) {
    const double* s = scores_of(query);
    // The keys it can see: at positions up to its own, or without the mask every one.
    const std::size_t seen = spec_.causal ? (query / groups_ + 1) * groups_ : keys_;
    double top = -INFINITY;
    for (std::size_t key = 0; key < seen; ++key) top = std::max(top, s[key]);
    for (std::size_t key = 0; key < seen; ++key) e[key] = portable_exp(s[key] - top);
    top_[query] = top;
  }
  return e;
}

namespace {

// One query's running sums at depths from + 1 … d, each its parent's plus the key at that
// depth: {maximum score, Z, N_1 … N_{n_v}} (see PrefixHead::running_sums). N > 0 fixes n_v at
// compile time (the handout's heads have 1 or 2 value components), 0 reads it from n_v.
template <std::size_t N>
void add_steps(int from, int d, std::size_t n_v, double* sums, std::size_t width,
               const std::size_t* key_at, const double* s, const double* e, const double* key_V,
               std::uint64_t* stamp, const std::uint64_t* placed) {
  const std::size_t n = N > 0 ? N : n_v;
  for (int depth = from + 1; depth <= d; ++depth) {
    double* here = sums + static_cast<std::size_t>(depth) * width;
    const std::size_t key = key_at[depth];
    const double* v = key_V + key * n;
    const double ek = e[key];
    if (depth == 0) {
      here[0] = s[key];
      here[1] = ek;
      for (std::size_t c = 0; c < n; ++c) here[2 + c] = ek * v[c];
    } else {
      const double* parent = here - width;
      here[0] = std::max(parent[0], s[key]);
      here[1] = parent[1] + ek;
      for (std::size_t c = 0; c < n; ++c) here[2 + c] = parent[2 + c] + ek * v[c];
    }
    stamp[depth] = placed[depth];
  }
}

}  // namespace

const double* PrefixHead::running_sums(int d, std::size_t query) {
  // A query's sums of every depth side by side: a row walks a few depths of one query.
  const std::size_t base = query * placed_.size();
  std::uint64_t* stamp = &stamp_[base];
  double* sums = &sums_[base * width_];
  int from = d;  // the deepest sums still current
  while (from >= 0 && stamp[from] != placed_[static_cast<std::size_t>(from)]) --from;
  if (from == d) return sums + static_cast<std::size_t>(d) * width_;
  const double* s = has_scores_[query] ? &key_S_[query * keys_] : scores_of(query);
  const double* e = std::isnan(top_[query]) ? fast_exponentials(query) : &fast_exps_[query * keys_];
  const std::size_t n_v = width_ - 2;
  // key_V_ is row-major with n_v columns: key k's value starts at k · n_v.
  const auto steps = n_v == 1 ? &add_steps<1> : n_v == 2 ? &add_steps<2> : &add_steps<0>;
  steps(from, d, n_v, sums, width_, key_at_.data(), s, e, key_V_.data(), stamp, placed_.data());
  return sums + static_cast<std::size_t>(d) * width_;
}

bool PrefixHead::row_from_sums(int d, std::size_t query, double* out) {
  const double* sums = running_sums(d, query);
  const double gap = top_[query] - sums[0];  // G = M_Q − m
  if (!(gap <= kMaxFastGap)) return false;   // NaN too: a score that is not finite
  bool finite = std::isfinite(sums[1]);
  for (std::size_t c = 0; c + 2 < width_; ++c) {
    out[c] = sums[2 + c] / sums[1];
    finite = finite && std::isfinite(out[c]);
  }
  return finite;
}

bool PrefixHead::fast_row(std::span<const int> prefix, double* out) {
  if (keys_ == 0) return false;
  place(prefix);
  if (sums_.empty()) return false;
  const int i = static_cast<int>(prefix.size()) - 1;
  return row_from_sums(i, key_at_[static_cast<std::size_t>(i)], out);
}

bool PrefixHead::fast_row_unmasked(std::size_t i, double* out) {
  if (sums_.empty()) return false;
  return row_from_sums(static_cast<int>(shown_) - 1, key_at_[i], out);
}

void PrefixHead::exact(std::span<const int> prefix, double* out) {
  for (std::size_t d = 1; d <= prefix.size(); ++d) extend(prefix.first(d), out);
}

}  // namespace headgrader

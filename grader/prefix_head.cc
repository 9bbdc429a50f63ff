#include "prefix_head.h"

#include <algorithm>
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

void PrefixHead::extend_from_tables(std::span<const int> prefix, double* out) {
  const int i = static_cast<int>(prefix.size()) - 1;
  const auto at = [&](int j) {
    return static_cast<std::size_t>(j) * groups_ +
           static_cast<std::size_t>(group_of_[static_cast<std::size_t>(prefix[j])]);
  };
  key_at_[static_cast<std::size_t>(i)] = at(i);
  const std::size_t query = key_at_[static_cast<std::size_t>(i)];
  const double* s = scores_of(query);
  // Steps 3–5 as masked_softmax_row does them, in its order: the maximum, the exponentials
  // and their sum, the division.
  std::size_t top = key_at_[0];
  for (int j = 1; j <= i; ++j) {
    const std::size_t key = key_at_[static_cast<std::size_t>(j)];
    if (s[key] > s[top]) top = key;  // std::max keeps the first of equals: so does this
  }
  const double* e = exponentials_of(query, top, i);
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

void PrefixHead::exact(std::span<const int> prefix, double* out) {
  for (std::size_t d = 1; d <= prefix.size(); ++d) extend(prefix.first(d), out);
}

}  // namespace headgrader

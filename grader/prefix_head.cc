#include "prefix_head.h"

#include "head_math.h"

namespace headgrader {

PrefixHead::PrefixHead(const HeadSpec& spec, const HeadWeights& w, int max_depth)
    : spec_(spec),
      w_(w),
      R_(max_depth, spec.W_E.rows()),
      Q_(max_depth, w.W_q.rows()),
      K_(max_depth, w.W_k.rows()),
      V_(max_depth, w.W_V.rows()),
      scores_(max_depth),
      attention_(max_depth) {}

void PrefixHead::extend(std::span<const int> prefix, double* out) {
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

void PrefixHead::exact(std::span<const int> prefix, double* out) {
  for (std::size_t d = 1; d <= prefix.size(); ++d) extend(prefix.first(d), out);
}

}  // namespace headgrader

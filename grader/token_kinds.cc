#include "token_kinds.h"

#include <algorithm>
#include <cstring>

#include "headgrader/limits.h"

namespace headgrader {
namespace {

// Bit for bit: two columns give every token the same embedding only if their numbers are
// the same doubles (0.0 and -0.0 differ in e + w when e is -0.0).
bool same_column(const Matrix& W_P, Eigen::Index a, Eigen::Index b) {
  for (Eigen::Index e = 0; e < W_P.rows(); ++e) {
    const double x = W_P(e, a), y = W_P(e, b);
    if (std::memcmp(&x, &y, sizeof x) != 0) return false;
  }
  return true;
}

// (n + g − 1 choose g − 1): the count vectors of n tokens over g groups, saturating at `cap`.
double multisets(std::size_t g, std::size_t n, double cap) {
  double ways = 1;
  for (std::size_t i = 1; i < g && ways < cap; ++i) {
    ways = ways * static_cast<double>(n + i) / static_cast<double>(i);
  }
  return std::min(ways, cap);
}

}  // namespace

std::optional<TokenKinds> TokenKinds::of(const Problem& p, int max_depth) {
  if (!p.head.causal || max_depth < 1) return std::nullopt;
  if (p.head.W_P && max_depth > p.head.W_P->cols()) return std::nullopt;  // not after load
  const std::optional<std::vector<int>> fixed = p.expected->fixed_positions();
  const auto depth = static_cast<std::size_t>(max_depth);
  std::vector<bool> own(depth + 1, false);  // positions that `at` reads: a class each
  for (const int k : fixed.value_or(std::vector<int>{})) {
    if (static_cast<std::size_t>(k) <= depth) own[static_cast<std::size_t>(k)] = true;
  }
  std::vector<std::size_t> class_of(depth);
  std::size_t classes = 0;
  for (std::size_t position = 1; position <= depth; ++position) {
    std::size_t c = classes;  // a new class, unless an earlier position shares it
    if (!own[position]) {
      for (std::size_t earlier = 1; earlier < position; ++earlier) {
        if (own[earlier]) continue;
        if (!p.head.W_P || same_column(*p.head.W_P, static_cast<Eigen::Index>(earlier - 1),
                                       static_cast<Eigen::Index>(position - 1))) {
          c = class_of[earlier - 1];
          break;
        }
      }
    }
    if (c == classes) ++classes;
    class_of[position - 1] = c;
  }
  TokenKinds kinds = with_classes(p, std::move(class_of));
  if (kinds.classes_ == 1) return kinds;  // states count groups, as for any causal head

  // The states the tested set can reach: at each depth d ≤ E of the exhaustive set, every
  // count vector of each class (its positions up to d over the groups), against its g^d
  // prefixes; beyond E, at most one per prefix of an extra string (within E, an extra
  // string's prefixes are among the exhaustive set's states). Counting pays when the states
  // are at most half the prefixes (W_P columns that all differ make them as many) and their
  // numbers stay bounded.
  const int E = p.strings.exhaustive_length;
  const auto cap = static_cast<double>(limits::kMaxCountStateNumbers);
  const double per_state = static_cast<double>(kinds.size());
  const auto g = static_cast<double>(kinds.groups_);
  double states = 1, prefixes = 1, at_length = 1;
  std::vector<std::size_t> in_class(kinds.classes_, 0);
  for (int d = 1; d <= E && states * per_state <= cap; ++d) {
    ++in_class[kinds.class_of_[static_cast<std::size_t>(d - 1)]];
    double at_depth = 1;
    for (const std::size_t n : in_class) at_depth *= multisets(kinds.groups_, n, cap);
    states += at_depth;
    at_length *= g;
    prefixes += at_length;
  }
  for (const TokenString& s : p.extra_strings()) {
    states += static_cast<double>(std::max<std::ptrdiff_t>(std::ssize(s) - E, 0));
    prefixes += static_cast<double>(s.size());
  }
  if (states * per_state > cap || 2 * states > prefixes) return std::nullopt;
  return kinds;
}

TokenKinds TokenKinds::with_classes(const Problem& p, std::vector<std::size_t> class_of) {
  TokenKinds kinds;
  kinds.groups_ = p.representatives().size();
  kinds.representatives_ = p.representatives();
  kinds.expected_by_kinds_ = p.expected->fixed_positions().has_value();
  kinds.class_of_ = std::move(class_of);
  for (std::size_t i = 0; i < kinds.class_of_.size(); ++i) {
    if (kinds.class_of_[i] == kinds.classes_) {
      ++kinds.classes_;
      kinds.first_position_.push_back(static_cast<int>(i + 1));
    }
  }
  return kinds;
}

void TokenKinds::spell_state(const int* counts, std::size_t last, TokenString& prefix,
                             std::vector<int>& scratch) const {
  // scratch: each kind's tokens still to place, then each class's next kind to place.
  scratch.assign(counts, counts + size());
  scratch.resize(size() + classes_);
  --scratch[last];
  int depth = 1;
  for (std::size_t k = 0; k < size(); ++k) depth += scratch[k];
  for (std::size_t c = 0; c < classes_; ++c) scratch[size() + c] = static_cast<int>(c * groups_);
  prefix.resize(static_cast<std::size_t>(depth));
  for (int position = 1; position < depth; ++position) {
    int& next = scratch[size() + class_at(position)];
    while (scratch[static_cast<std::size_t>(next)] == 0) ++next;
    --scratch[static_cast<std::size_t>(next)];
    prefix[static_cast<std::size_t>(position - 1)] = token(static_cast<std::size_t>(next));
  }
  prefix.back() = token(last);
}

}  // namespace headgrader

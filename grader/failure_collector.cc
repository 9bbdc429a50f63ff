#include "failure_collector.h"

#include <algorithm>

namespace headgrader {

bool FailureCollector::add(const TokenString& s) {
  if (!accepts(s.size())) return false;
  const auto at = std::upper_bound(kept_.begin(), kept_.end(), s, shortlex_less);
  if (kept_.size() == capacity_ && at == kept_.end()) return false;
  kept_.insert(at, s);
  if (kept_.size() > capacity_) kept_.pop_back();
  return true;
}

void FailureCollector::add_subtree(std::span<const int> prefix, const std::vector<int>& symbols,
                                   int max_depth) {
  const auto base = prefix.size();
  TokenString s(prefix.begin(), prefix.end());
  for (auto length = base; length <= static_cast<std::size_t>(max_depth); ++length) {
    if (!accepts(length)) return;
    const auto extra = length - base;
    s.resize(length);
    // The first `capacity_` extensions in alphabet order: count in base |symbols|.
    std::vector<std::size_t> digits(extra, 0);
    for (std::size_t n = 0; n < capacity_; ++n) {
      for (std::size_t k = 0; k < extra; ++k) s[base + k] = symbols[digits[k]];
      if (!add(s)) break;  // later extensions of this length come after it: not kept either
      std::size_t k = extra;
      while (k > 0 && ++digits[k - 1] == symbols.size()) digits[--k] = 0;
      if (k == 0) break;  // every extension of this length done
    }
  }
}

}  // namespace headgrader

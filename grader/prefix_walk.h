// The exhaustive set as a tree of prefixes (API.md §4): every string of length
// 1..max_depth over the representatives, visited depth-first in alphabet order. A causal
// head's output at position i depends only on s_1 … s_i, so each prefix is computed once,
// and when a prefix fails every string below it fails too: the visitor says whether to
// descend.
#pragma once

#include <span>
#include <vector>

namespace headgrader {

// visit(std::span<const int> prefix) -> bool descend. The prefix's last token is the new one;
// everything before it was visited just before (so per-depth state can be kept in arrays).
template <typename Visit>
void walk_prefixes(const std::vector<int>& symbols, int max_depth, Visit&& visit) {
  if (max_depth <= 0 || symbols.empty()) return;
  const auto g = symbols.size();
  std::vector<std::size_t> choice(static_cast<std::size_t>(max_depth) + 1, 0);
  std::vector<int> prefix(static_cast<std::size_t>(max_depth));
  int depth = 1;
  while (depth >= 1) {
    auto& here = choice[static_cast<std::size_t>(depth)];
    if (here == g) {  // every child of the parent done: back up
      if (--depth >= 1) ++choice[static_cast<std::size_t>(depth)];
      continue;
    }
    prefix[static_cast<std::size_t>(depth - 1)] = symbols[here];
    const bool descend =
        visit(std::span<const int>(prefix.data(), static_cast<std::size_t>(depth)));
    if (descend && depth < max_depth) {
      choice[static_cast<std::size_t>(++depth)] = 0;
    } else {
      ++here;
    }
  }
}

}  // namespace headgrader

// The failing strings a report lists (API.md §5: `failures`, at most max_failures of them),
// in report order whatever order grading finds them in.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "headgrader/strings.h"

namespace headgrader {

// Keeps the first `capacity` failing strings in report order (shorter first, then alphabet
// order), whatever order they are found in.
class FailureCollector {
 public:
  explicit FailureCollector(std::size_t capacity) : capacity_(capacity) {}

  // Could a string of this length still make the list?
  bool accepts(std::size_t length) const {
    return kept_.size() < capacity_ || (capacity_ > 0 && kept_.back().size() >= length);
  }
  // Whether `s` is now in the list.
  bool add(const TokenString& s);
  // Adds the strings of the subtree under `prefix` (prefix included) down to max_depth, as
  // many as could make the list: at each depth only the first `capacity` in alphabet order.
  void add_subtree(std::span<const int> prefix, const std::vector<int>& symbols, int max_depth);

  const std::vector<TokenString>& kept() const { return kept_; }

 private:
  std::size_t capacity_;
  std::vector<TokenString> kept_;  // sorted, at most capacity_
};

}  // namespace headgrader

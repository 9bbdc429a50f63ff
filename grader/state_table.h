// The count states a grade finds as it meets them, when the problem has no graph of its own
// deep enough (count_states.h). Prefixes with the same group counts (a "state") give the
// same fast row (group_count_head.h). States are numbered as they are met; next(state, g) is
// the state one token of group g later. Each new state is found by one lookup in an
// open-addressing table keyed by a hash that adds a random weight per group (so a child's
// hash is its parent's plus one term): no allocation per state, which matters when a grade
// meets a few dozen states in a few microseconds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace headgrader {

class StateTable {
 public:
  explicit StateTable(std::size_t groups);

  // The transitions found so far: next_data()[state * groups + g], -1 when not yet found.
  const int* next_data() const { return next_.data(); }
  // counts_data()[state * groups + b]: group b's count in the state; state 0 is the empty
  // prefix.
  const int* counts_data() const { return counts_.data(); }
  std::size_t size() const { return hash_.size(); }

  // The state one token of `group` after `state`, found or added. Adding moves what
  // next_data() and counts_data() point to.
  int add(int state, std::size_t group);

 private:
  std::size_t slot_of(std::uint64_t hash) const {
    return static_cast<std::size_t>((hash * 0x9E3779B97F4A7C15ULL) >> 32) & (slots_.size() - 1);
  }
  int find_or_add(int parent, std::size_t group);
  void rehash();

  std::size_t g_;
  std::vector<std::uint64_t> weight_;  // per group: a state's hash is Σ counts · weights
  std::vector<int> slots_;             // open addressing: state ids, -1 empty; power of 2
  std::vector<std::uint64_t> hash_;    // per state
  std::vector<int> counts_, next_;
};

}  // namespace headgrader

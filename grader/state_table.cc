#include "state_table.h"

#include <algorithm>

#include "headgrader/strings.h"

namespace headgrader {

StateTable::StateTable(std::size_t groups) : g_(groups), weight_(groups), slots_(64, -1) {
  SplitMix64 rng(0x5eed);
  for (auto& w : weight_) w = rng.next();
  counts_.assign(g_, 0);  // state 0: the empty prefix
  hash_.push_back(0);
  next_.assign(g_, -1);
  slots_[slot_of(0)] = 0;
}

int StateTable::add(int state, std::size_t group) {
  const std::size_t at = static_cast<std::size_t>(state) * g_ + group;
  if (next_[at] < 0) {
    const int id = find_or_add(state, group);  // grows next_: index it again afterwards
    next_[at] = id;
  }
  return next_[at];
}

// The state of `parent`'s counts with one more of `group`.
int StateTable::find_or_add(int parent, std::size_t group) {
  const std::uint64_t hash = hash_[static_cast<std::size_t>(parent)] + weight_[group];
  const int* base = &counts_[static_cast<std::size_t>(parent) * g_];
  const auto is_child = [&](int id) {
    const int* n = &counts_[static_cast<std::size_t>(id) * g_];
    for (std::size_t b = 0; b < g_; ++b) {
      if (n[b] != base[b] + (b == group)) return false;
    }
    return true;
  };
  std::size_t slot = slot_of(hash);
  for (; slots_[slot] >= 0; slot = (slot + 1) & (slots_.size() - 1)) {
    const int id = slots_[slot];
    if (hash_[static_cast<std::size_t>(id)] == hash && is_child(id)) return id;
  }
  const int id = static_cast<int>(size());
  const std::size_t from = static_cast<std::size_t>(parent) * g_, to = counts_.size();
  counts_.resize(to + g_);  // may move counts_: `base` is stale from here
  std::copy_n(counts_.begin() + static_cast<std::ptrdiff_t>(from), g_,
              counts_.begin() + static_cast<std::ptrdiff_t>(to));
  ++counts_[to + group];
  hash_.push_back(hash);
  next_.resize(next_.size() + g_, -1);
  slots_[slot] = id;
  if (2 * size() > slots_.size()) rehash();
  return id;
}

void StateTable::rehash() {
  slots_.assign(2 * slots_.size(), -1);
  for (std::size_t id = 0; id < size(); ++id) {
    std::size_t slot = slot_of(hash_[id]);
    while (slots_[slot] >= 0) slot = (slot + 1) & (slots_.size() - 1);
    slots_[slot] = static_cast<int>(id);
  }
}

}  // namespace headgrader

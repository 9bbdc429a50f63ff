// The count states one judge walks, and that judge's verdict at each (state, last group)
// slot. The states are the problem's graph (count_states.h) when it has one:
// complete and read only. Otherwise they are this judge's own StateTable, found as they are
// met. Either way the same accessors, with no branch on which: every transition the graph
// holds is known, so only a table ever reaches add().
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "count_states.h"
#include "row_verdict.h"
#include "state_table.h"

namespace headgrader {

class StateVerdicts {
 public:
  explicit StateVerdicts(const CountStateGraph& graph);  // depth strings.max_length
  explicit StateVerdicts(std::size_t groups);            // states found as met

  // The state one token of `group` after `state`.
  int next(int state, std::size_t group) {
    const int known = next_[slot(state, group)];
    return known >= 0 ? known : add(state, group);
  }
  // Each group's count in `state` (valid until the next call of next()).
  const int* counts(int state) const { return counts_ + static_cast<std::size_t>(state) * g_; }
  std::size_t size() const { return size_; }

  // kUnknown until judged. A slot is state * groups + last group.
  Verdict& verdict(int state, std::size_t group) { return verdicts_[slot(state, group)]; }
  Verdict& verdict(std::size_t slot) { return verdicts_[slot]; }

 private:
  std::size_t slot(int state, std::size_t group) const {
    return static_cast<std::size_t>(state) * g_ + group;
  }
  int add(int state, std::size_t group);

  std::size_t g_;
  std::unique_ptr<StateTable> table_;  // null over a graph
  const int* next_;                    // the graph's, or table_'s as it grows
  const int* counts_;
  std::size_t size_;
  std::vector<Verdict> verdicts_;  // per slot
};

}  // namespace headgrader

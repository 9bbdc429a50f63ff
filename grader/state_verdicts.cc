#include "state_verdicts.h"

#include <cassert>

namespace headgrader {

StateVerdicts::StateVerdicts(const CountStateGraph& graph)
    : g_(graph.kinds),
      next_(graph.next.data()),
      counts_(graph.counts.data()),
      size_(graph.size()),
      verdicts_(graph.size() * graph.kinds, Verdict::kUnknown) {}

StateVerdicts::StateVerdicts(std::size_t groups)
    : g_(groups),
      table_(std::make_unique<StateTable>(groups)),
      next_(table_->next_data()),
      counts_(table_->counts_data()),
      size_(table_->size()),
      verdicts_(table_->size() * groups, Verdict::kUnknown) {}

int StateVerdicts::add(int state, std::size_t group) {
  // Over a graph every transition up to its depth is known: a -1 there is past
  // strings.max_length, which no tested prefix is.
  assert(table_ != nullptr);
  const int id = table_->add(state, group);
  next_ = table_->next_data();
  counts_ = table_->counts_data();
  size_ = table_->size();
  verdicts_.resize(size_ * g_, Verdict::kUnknown);
  return id;
}

}  // namespace headgrader

#include "mistake_trials.h"

#include "count_states.h"

namespace headgrader {
namespace {

// The cost of grading one changed copy, in the budget's units (limits.h).
std::uint64_t trial_cost(const Problem& p) {
  const CountStateGraph* g = p.count_states();
  // The graph exists only when rows are functions of kind counts (count_states.h).
  return g ? static_cast<std::uint64_t>(g->size() * g->kinds) : p.tested_total();
}

}  // namespace

Trials::Trials(const Problem& p, const HeadWeights& w) : p(p), w(w), cost_(trial_cost(p)) {}

}  // namespace headgrader

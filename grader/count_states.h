// The count states of a problem, built once at load: every (group counts) a tested prefix
// can reach, with its transitions and, for each last group, the `expected` row there.
// Without W_P and without `at`, a prefix's head row and expected row depend only on these,
// so grading a submission needs no hashing and no `expected` evaluation: only the head's
// rows, one per (state, last group) it reaches (prefix_judge.cc).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "headgrader/problem.h"

namespace headgrader {

struct CountStateGraph {
  std::size_t groups = 0;
  std::size_t n_v = 0;
  int depth = 0;            // every state of a prefix of length ≤ depth is here
  std::vector<int> counts;  // [state * groups + b]; state 0 is the empty prefix
  // States are numbered by depth (their count of tokens). The exhaustive set (strings of
  // length 1..exhaustive_length) reaches exactly the states below exhaustive_states, each
  // with every group it counts as the last one.
  int exhaustive_length = 0;
  std::size_t exhaustive_states = 0;
  std::vector<int> next;         // [state * groups + a]: one more token of group a; -1 past depth
  std::vector<double> expected;  // [(state * groups + a) * n_v + c], for counts[a] ≥ 1
  // The problem's extra strings as the (state, last group) slots their prefixes reach, each
  // slot once: a string passes where every slot of it passes, so strings with the same slots
  // share a path and are judged once. Path k is path_slots[path_begin[k] .. path_begin[k+1]),
  // a slot being state * groups + last group; extra_path[i] is the path of extra_strings[i].
  std::vector<int> path_slots;
  std::vector<std::size_t> path_begin;
  std::vector<int> extra_path;
  // The slots that only extra strings reach (their states are past exhaustive_length), each
  // once, sorted: with the exhaustive set's, every slot a tested prefix is in.
  std::vector<int> extra_only_slots;

  std::size_t size() const { return counts.size() / groups; }
  const int* counts_of(int state) const {
    return &counts[static_cast<std::size_t>(state) * groups];
  }
  const double* expected_row(int state, std::size_t a) const {
    return &expected[(static_cast<std::size_t>(state) * groups + a) * n_v];
  }
};

// `expected` into out (n_v numbers) at any prefix with group counts `counts` whose last
// token is in group `last`, evaluated on one such prefix: the groups' representatives in
// order, one of `last` moved to the end. Meaningful when `expected` has no `at`; false when
// evaluation faults. `prefix` and `class_counts` are scratch space.
bool expected_at_state(const Problem& problem, const int* counts, std::size_t last,
                       TokenString& prefix, std::vector<int>& class_counts, double* out);

// Up to depth strings.max_length, with the extra strings' paths; nullptr when rows are not a
// function of counts (W_P, `at`, no causal mask) or when the graph would hold more than
// `max_numbers` (Problem::derive's limit, limits::kMaxCountStateNumbers when loading).
// Called by Problem::derive once the rest is derived. Precondition: `expected` was checked
// on the tested set (evaluation cannot fault).
std::shared_ptr<const CountStateGraph> build_count_states(const Problem& problem,
                                                          std::size_t max_numbers);

}  // namespace headgrader

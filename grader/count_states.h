// The count states of a problem, built once at load: every (kind counts) a tested prefix
// can reach, with its transitions and, for each last kind, the `expected` row there. A kind
// is a token's group, and with W_P or a fixed `at` the class of its position too
// (token_kinds.h). With the causal mask a prefix's head row and expected row depend only on
// these, so grading a submission needs no hashing and no `expected` evaluation: only the
// head's rows, one per (state, last kind) it reaches (prefix_judge.cc).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "headgrader/problem.h"
#include "token_kinds.h"

namespace headgrader {

struct CountStateGraph {
  std::size_t kinds = 0;  // TokenKinds::size()
  std::size_t n_v = 0;
  int depth = 0;            // every state of a prefix of length ≤ depth is here
  std::vector<int> counts;  // [state * kinds + b]; state 0 is the empty prefix
  // States are numbered by depth (their count of tokens). The exhaustive set (strings of
  // length 1..exhaustive_length) reaches exactly the states below exhaustive_states, each
  // with every kind it counts at its last position as the last one.
  int exhaustive_length = 0;
  std::size_t exhaustive_states = 0;
  // [state * kinds + a]: one more token, of kind a; -1 past depth and for the kinds that
  // the next position cannot hold.
  std::vector<int> next;
  // [(state * kinds + a) * n_v + c], for counts[a] ≥ 1 and a a kind of the state's last
  // position.
  std::vector<double> expected;
  // The problem's extra strings as the (state, last kind) slots their prefixes reach, each
  // slot once: a string passes where every slot of it passes, so strings with the same slots
  // share a path and are judged once. Path k is path_slots[path_begin[k] .. path_begin[k+1]),
  // a slot being state * kinds + last kind; extra_path[i] is the path of extra_strings[i].
  std::vector<int> path_slots;
  std::vector<std::size_t> path_begin;
  std::vector<int> extra_path;
  // The slots that only extra strings reach (their states are past exhaustive_length), each
  // once, sorted: with the exhaustive set's, every slot a tested prefix is in.
  std::vector<int> extra_only_slots;

  std::size_t size() const { return counts.size() / kinds; }
  const int* counts_of(int state) const { return &counts[static_cast<std::size_t>(state) * kinds]; }
  const double* expected_row(int state, std::size_t a) const {
    return &expected[(static_cast<std::size_t>(state) * kinds + a) * n_v];
  }
};

// `expected` into out (n_v numbers) at any prefix with kind counts `counts` whose last
// token is of kind `last`, evaluated on one such prefix (TokenKinds::spell_state).
// Meaningful when kinds.expected_by_kinds(); false when evaluation faults. `prefix`,
// `class_counts` and `scratch` are work space.
bool expected_at_state(const Problem& problem, const TokenKinds& kinds, const int* counts,
                       std::size_t last, TokenString& prefix, std::vector<int>& class_counts,
                       std::vector<int>& scratch, double* out);

// Up to depth strings.max_length, with the extra strings' paths; nullptr when rows are not a
// function of kind counts (no causal mask, an `at` of a varying position, positions that do
// not compress: TokenKinds::of) or when the graph would hold more than `max_numbers`
// (Problem::derive's limit, limits::kMaxCountStateNumbers when loading). Called by
// Problem::derive once the rest is derived. Precondition: `expected` was checked on the
// tested set (evaluation cannot fault).
std::shared_ptr<const CountStateGraph> build_count_states(const Problem& problem,
                                                          std::size_t max_numbers);

}  // namespace headgrader

// What a count state counts (count_states.h, state_table.h): kinds of tokens. Without W_P
// and without `at`, a token's query, key and value, and all that `expected` reads of it,
// depend on its group alone (its embedding and its classes), so a kind is a group. A
// position embedding adds the position: but positions whose W_P columns are equal give a
// token the same embedding, and `expected` reading at(k, C) for a constant k needs only the
// group at position k. So the positions up to the judge's depth fall into classes (each
// position that `at` reads is a class of its own; the others share one per distinct W_P
// column), and a kind is (group, class of its position). With the causal mask, the head's
// row and `expected`'s at a prefix are then functions of how many tokens of each kind it
// holds and of its last token's kind. The handout's first-position (W_P's columns 2…8 are
// equal) has 2 groups × 2 classes: its 33 554 430 strings up to length 24 reach 600 states.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "headgrader/problem.h"

namespace headgrader {

class TokenKinds {
 public:
  // The kinds of `p` for prefixes up to `max_depth`, or nullopt when rows are not functions
  // of kind counts (no causal mask), or when the positions compress too little for counting
  // to pay (the states would be about as many as the prefixes, or past
  // limits::kMaxCountStateNumbers numbers): the prefixes are then judged one by one.
  static std::optional<TokenKinds> of(const Problem& p, int max_depth);
  // The kinds of a given partition of the positions 1…class_of.size() (class_of[i]: the
  // class of position i + 1, classes numbered from 0 in order of their first position),
  // right or not: for the test that shows a wrong one is caught (token_kinds_test.cc).
  static TokenKinds with_classes(const Problem& p, std::vector<std::size_t> class_of);

  std::size_t size() const { return groups_ * classes_; }
  std::size_t groups() const { return groups_; }
  std::size_t classes() const { return classes_; }
  int max_depth() const { return static_cast<int>(class_of_.size()); }
  // Whether `expected` is a function of kind counts and the last kind too (it reads no
  // position that varies, such as at(pos - 1, C)): then its rows can be kept per state.
  bool expected_by_kinds() const { return expected_by_kinds_; }

  // The kinds a token at `position` (1-based, ≤ max_depth()) can be: one per group, from
  // first_at(position) on. Kinds of one class are contiguous, in group order.
  std::size_t first_at(int position) const {
    return class_of_[static_cast<std::size_t>(position - 1)] * groups_;
  }
  std::size_t kind(std::size_t group, int position) const { return first_at(position) + group; }
  std::size_t group_of(std::size_t kind) const { return kind % groups_; }
  std::size_t class_of(std::size_t kind) const { return kind / groups_; }
  // The class of a position (1-based).
  std::size_t class_at(int position) const {
    return class_of_[static_cast<std::size_t>(position - 1)];
  }
  // A token of the kind (its group's representative) and the first position of its class:
  // every token of the kind at every position of the class has this one's embedding.
  int token(std::size_t kind) const { return representatives_[group_of(kind)]; }
  int position(std::size_t kind) const { return first_position_[class_of(kind)]; }

  // One prefix of `depth` = Σ counts tokens with these kind counts whose last token is of
  // kind `last`, into `prefix`: each class's positions hold its kinds' tokens in kind order,
  // the last position the last kind. Precondition: the counts are those of some prefix
  // (each class's kinds count as many tokens as the class has positions up to `depth`).
  // `scratch` is work space, so that a grade's loop allocates nothing.
  void spell_state(const int* counts, std::size_t last, TokenString& prefix,
                   std::vector<int>& scratch) const;

 private:
  std::size_t groups_ = 0, classes_ = 0;
  bool expected_by_kinds_ = false;
  std::vector<int> representatives_;   // per group
  std::vector<std::size_t> class_of_;  // per position - 1
  std::vector<int> first_position_;    // per class, 1-based
};

}  // namespace headgrader

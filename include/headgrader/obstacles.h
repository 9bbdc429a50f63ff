// Obstacles (API.md §14): defects of `expected` that no head can meet, proved before any
// search by a small linear program each (grader/obstacle_lp.h).
//   position_one    At position 1 a causal head outputs W_V r_1 whatever W_q and W_k are:
//                   when no W_V (or not the given one) maps every first token's embedding to
//                   its expected output within the tolerance, nothing can.
//   outside_values  With W_V given, out_i is a mixture of V_1 … V_i (of every V_j without
//                   the mask): an expected row farther than the tolerance from every mixture
//                   is out of reach.
// Only what a program proves is reported, with a margin (limits::kObstacleProofSlack) for
// its arithmetic: a target the tolerance just admits is never an obstacle.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "headgrader/problem.h"

namespace headgrader {

struct Obstacle {
  std::string kind;     // "position_one" | "outside_values"
  TokenString input;    // the shortest input that shows it
  int position = 0;     // 1-based
  std::string message;  // why, and what to change
};

// Every obstacle proved, position_one first, each kind shortest input first and at most
// limits::kMaxObstaclesPerKind of each. outside_values checks the prefixes of at most
// limits::kObstacleStringBudget tested strings. The problem's reference is not used, so a
// Problem derived without one (Problem::derive_unproved) will do.
std::vector<Obstacle> find_obstacles(const Problem& problem);

}  // namespace headgrader

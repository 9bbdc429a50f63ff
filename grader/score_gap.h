// The scores a head can give, over every query token a tested string can hold (each group
// of alike tokens, at each position when the problem has W_P) and the keys that query can
// see: what a margin's score gap and the lint's "uniform attention" test read.
// Thread-safety: pure functions.
#pragma once

#include <optional>

#include "headgrader/problem.h"

namespace headgrader {

// The smallest difference, over the queries that see at least two distinct scores, between
// a query's highest score and its next-highest distinct one (how much the head prefers its
// favourite keys, in softmax's units). nullopt when every query sees one score only, or when
// there are more than limits::kMaxScoreGapTokens query tokens.
std::optional<double> smallest_score_gap(const Problem& problem, const HeadWeights& weights);

// Every query sees one score only (within rounding): the softmax spreads its attention
// evenly whatever the scale. False when the tokens are too many to check.
bool attention_is_uniform(const Problem& problem, const HeadWeights& weights);

}  // namespace headgrader

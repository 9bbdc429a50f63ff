// The small linear programs that prove obstacles (include/headgrader/obstacles.h): the least
// worst error, over every choice of the free numbers, of a linear fit or of a mixture. The
// dimensions are tiny (a few tokens, a few features), so a dense two-phase simplex with
// Bland's rule (which never cycles) solves each in microseconds, the same steps on every
// machine.
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "headgrader/attention.h"

namespace headgrader {

// min over x ≥ 0 with A x = b of c·x; nothing when there is no such x or when c·x has no
// lower bound. Rows of A with b < 0 are negated first, so any b will do.
std::optional<double> minimize_linear(const Matrix& A, const Eigen::VectorXd& b,
                                      const Eigen::VectorXd& c);

// min over w of max_t |w · points.col(t) − targets(t)|: how close any linear map of the
// columns of `points` can come to `targets` (one component of W_V r_1 at position 1).
double best_linear_fit_error(const Matrix& points, const Eigen::VectorXd& targets);

// min over mixtures α (α ≥ 0, Σα = 1) of max_c |(values · α)(c) − target(c)|: how close any
// attention over the columns of `values` can come to `target`.
double distance_to_mixtures(const Matrix& values, const Eigen::VectorXd& target);

}  // namespace headgrader

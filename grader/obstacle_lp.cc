#include "obstacle_lp.h"

#include <cmath>
#include <limits>

#include "headgrader/limits.h"

namespace headgrader {
namespace {

// A dense simplex tableau: rows 0..m-1 the constraints (last column the right-hand side),
// row m the objective's reduced costs; basis[i] the column basic in row i.
struct Tableau {
  Matrix t;
  std::vector<Eigen::Index> basis;

  Eigen::Index rows() const { return t.rows() - 1; }
  Eigen::Index rhs() const { return t.cols() - 1; }

  void pivot(Eigen::Index row, Eigen::Index col) {
    t.row(row) /= t(row, col);
    for (Eigen::Index r = 0; r < t.rows(); ++r) {
      if (r != row && t(r, col) != 0) t.row(r) -= t(r, col) * t.row(row);
    }
    basis[static_cast<std::size_t>(row)] = col;
  }

  // Minimises the objective row over columns [0, usable); false when it is unbounded.
  // Bland's rule: the lowest entering column, the lowest leaving basis index on ties.
  bool run(Eigen::Index usable) {
    const double eps = limits::kObstacleLpEpsilon;
    for (int step = 0; step < limits::kObstacleLpMaxPivots; ++step) {
      Eigen::Index enter = -1;
      for (Eigen::Index c = 0; c < usable; ++c) {
        if (t(rows(), c) < -eps) {
          enter = c;
          break;
        }
      }
      if (enter < 0) return true;
      Eigen::Index leave = -1;
      double best = std::numeric_limits<double>::infinity();
      for (Eigen::Index r = 0; r < rows(); ++r) {
        if (t(r, enter) <= eps) continue;
        const double ratio = t(r, rhs()) / t(r, enter);
        if (ratio < best - eps ||
            (ratio <= best + eps && leave >= 0 &&
             basis[static_cast<std::size_t>(r)] < basis[static_cast<std::size_t>(leave)])) {
          best = std::min(best, ratio);
          leave = r;
        }
      }
      if (leave < 0) return false;
      pivot(leave, enter);
    }
    return true;  // not reached for these sizes; the value so far is still an upper bound
  }
};

}  // namespace

std::optional<double> minimize_linear(const Matrix& A, const Eigen::VectorXd& b,
                                      const Eigen::VectorXd& c) {
  const Eigen::Index m = A.rows(), n = A.cols();
  // Columns: the n variables, then m artificial ones, then the right-hand side.
  Tableau tab{Matrix::Zero(m + 1, n + m + 1), {}};
  for (Eigen::Index r = 0; r < m; ++r) {
    const double sign = b(r) < 0 ? -1.0 : 1.0;
    tab.t.block(r, 0, 1, n) = sign * A.row(r);
    tab.t(r, n + r) = 1;
    tab.t(r, n + m) = sign * b(r);
    tab.basis.push_back(n + r);
  }
  // Phase 1: minimise the sum of the artificial variables.
  for (Eigen::Index r = 0; r < m; ++r) tab.t.row(m) -= tab.t.row(r);
  for (Eigen::Index r = 0; r < m; ++r) tab.t(m, n + r) = 0;
  tab.run(n + m);
  if (-tab.t(m, n + m) > limits::kObstacleLpEpsilon * (1 + b.cwiseAbs().sum())) {
    return std::nullopt;
  }
  // Drive artificial variables still basic (at zero) out where a real column can enter.
  for (Eigen::Index r = 0; r < m; ++r) {
    if (tab.basis[static_cast<std::size_t>(r)] < n) continue;
    for (Eigen::Index col = 0; col < n; ++col) {
      if (std::abs(tab.t(r, col)) > limits::kObstacleLpEpsilon) {
        tab.pivot(r, col);
        break;
      }
    }
  }
  // Phase 2: the real objective, in terms of the non-basic columns.
  tab.t.row(m).setZero();
  tab.t.block(m, 0, 1, n) = c.transpose();
  for (Eigen::Index r = 0; r < m; ++r) {
    const Eigen::Index col = tab.basis[static_cast<std::size_t>(r)];
    if (col < n && tab.t(m, col) != 0) tab.t.row(m) -= tab.t(m, col) * tab.t.row(r);
  }
  if (!tab.run(n)) return std::nullopt;
  return -tab.t(m, n + m);
}

double best_linear_fit_error(const Matrix& points, const Eigen::VectorXd& targets) {
  // Variables: w⁺, w⁻ (d each), z, then a slack for each of the 2 k rows
  //   p_t·(w⁺ − w⁻) − z + s_t = e_t,   −p_t·(w⁺ − w⁻) − z + s'_t = −e_t.
  const Eigen::Index d = points.rows(), k = points.cols();
  const Eigen::Index n = 2 * d + 1 + 2 * k;
  Matrix A = Matrix::Zero(2 * k, n);
  Eigen::VectorXd b(2 * k), c = Eigen::VectorXd::Zero(n);
  c(2 * d) = 1;
  for (Eigen::Index t = 0; t < k; ++t) {
    for (int side = 0; side < 2; ++side) {
      const Eigen::Index r = 2 * t + side;
      const double sign = side == 0 ? 1.0 : -1.0;
      A.block(r, 0, 1, d) = sign * points.col(t).transpose();
      A.block(r, d, 1, d) = -sign * points.col(t).transpose();
      A(r, 2 * d) = -1;
      A(r, 2 * d + 1 + r) = 1;
      b(r) = sign * targets(t);
    }
  }
  return minimize_linear(A, b, c).value_or(0);
}

double distance_to_mixtures(const Matrix& values, const Eigen::VectorXd& target) {
  // Variables: α (k), z, then a slack for each of the 2 n_v rows
  //   V_c·α − z + s_c = e_c,   −V_c·α − z + s'_c = −e_c,   Σα = 1.
  const Eigen::Index nv = values.rows(), k = values.cols();
  const Eigen::Index n = k + 1 + 2 * nv;
  Matrix A = Matrix::Zero(2 * nv + 1, n);
  Eigen::VectorXd b(2 * nv + 1), c = Eigen::VectorXd::Zero(n);
  c(k) = 1;
  for (Eigen::Index comp = 0; comp < nv; ++comp) {
    for (int side = 0; side < 2; ++side) {
      const Eigen::Index r = 2 * comp + side;
      const double sign = side == 0 ? 1.0 : -1.0;
      A.block(r, 0, 1, k) = sign * values.row(comp);
      A(r, k) = -1;
      A(r, k + 1 + r) = 1;
      b(r) = sign * target(comp);
    }
  }
  A.block(2 * nv, 0, 1, k).setOnes();
  b(2 * nv) = 1;
  return minimize_linear(A, b, c).value_or(0);
}

}  // namespace headgrader

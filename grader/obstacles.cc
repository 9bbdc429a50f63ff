#include "headgrader/obstacles.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "headgrader/grade.h"
#include "headgrader/limits.h"
#include "message_text.h"
#include "obstacle_lp.h"

namespace headgrader {
namespace {

bool submits_values(const Problem& p) {
  return std::find(p.submit.begin(), p.submit.end(), "W_V") != p.submit.end();
}

std::string number_text(double x) {
  const auto [text, unused] =
      lists_told_apart(std::span<const double>(&x, 1), std::span<const double>(&x, 1));
  return text.substr(1, text.size() - 2);
}

std::string row_text(const Eigen::VectorXd& v) {
  std::vector<double> numbers(v.data(), v.data() + v.size());
  return lists_told_apart(numbers, numbers).first;
}

// The embedding r_i of `token` at 1-based `position`.
Eigen::VectorXd embedding(const Problem& p, int token, int position) {
  Eigen::VectorXd r = p.head.W_E.col(token);
  if (p.head.W_P) r += p.head.W_P->col(position - 1);
  return r;
}

// The groups a tested string can start with, as their representatives, ascending.
std::vector<int> first_tokens(const Problem& p) {
  std::set<int> firsts;
  if (p.strings.exhaustive_length >= 1) {
    firsts.insert(p.representatives().begin(), p.representatives().end());
  }
  for (const TokenString& s : p.extra_strings()) {
    firsts.insert(p.representatives()[static_cast<std::size_t>(p.group_of()[s.front()])]);
  }
  return {firsts.begin(), firsts.end()};
}

double fit_error(const Matrix& points, const std::vector<int>& columns,
                 const Eigen::VectorXd& targets) {
  Matrix chosen(points.rows(), static_cast<Eigen::Index>(columns.size()));
  Eigen::VectorXd wanted(chosen.cols());
  for (std::size_t k = 0; k < columns.size(); ++k) {
    chosen.col(static_cast<Eigen::Index>(k)) = points.col(columns[k]);
    wanted(static_cast<Eigen::Index>(k)) = targets(columns[k]);
  }
  return best_linear_fit_error(chosen, wanted);
}

void position_one(const Problem& p, std::vector<Obstacle>& found) {
  if (!p.head.causal) return;
  const std::vector<int> firsts = first_tokens(p);
  if (firsts.empty()) return;
  const double bound = p.tolerance + limits::kObstacleProofSlack;
  const auto k = static_cast<Eigen::Index>(firsts.size());
  Matrix points(static_cast<Eigen::Index>(p.n_e), k), targets(k, static_cast<Eigen::Index>(p.n_v));
  for (Eigen::Index t = 0; t < k; ++t) {
    const int token = firsts[static_cast<std::size_t>(t)];
    points.col(t) = embedding(p, token, 1);
    targets.row(t) = expected_output(p, TokenString{token}).row(0);
  }
  const std::string lead =
      "at position 1 a causal head can only copy a value of the first letter (";
  if (!submits_values(p)) {
    const Matrix& W_V = p.reference.W_V;  // the given one
    for (Eigen::Index t = 0; t < k && found.size() < limits::kMaxObstaclesPerKind; ++t) {
      const Eigen::VectorXd out = W_V * points.col(t);
      const Eigen::VectorXd want = targets.row(t).transpose();
      if ((out - want).cwiseAbs().maxCoeff() <= bound) continue;
      const TokenString input{firsts[static_cast<std::size_t>(t)]};
      found.push_back({"position_one", input, 1,
                       lead + "W_V r_1, whatever W_q and W_k are): the given W_V gives " +
                           row_text(out) + " for " + in_quotes(p.spell(input)) +
                           " where expected is " + row_text(want) + " (tolerance " +
                           number_text(p.tolerance) +
                           "); make expected at position 1 what W_V gives for the first letter, "
                           "as `pos == 1 ? … : …` can, or give another W_V"});
    }
    return;
  }
  std::set<std::vector<int>> reported;
  for (Eigen::Index c = 0; c < targets.cols(); ++c) {
    const Eigen::VectorXd wanted = targets.col(c);
    std::vector<int> tied(static_cast<std::size_t>(k));
    for (Eigen::Index t = 0; t < k; ++t) tied[static_cast<std::size_t>(t)] = static_cast<int>(t);
    if (fit_error(points, tied, wanted) <= bound) continue;
    // The fewest first letters that still conflict: drop each one the conflict survives.
    for (std::size_t at = tied.size(); at-- > 0;) {
      std::vector<int> without;
      for (std::size_t n = 0; n < tied.size(); ++n) {
        if (n != at) without.push_back(tied[n]);
      }
      if (!without.empty() && fit_error(points, without, wanted) > bound) tied = without;
    }
    if (!reported.insert(tied).second || found.size() >= limits::kMaxObstaclesPerKind) continue;
    std::string letters, values;
    for (std::size_t n = 0; n < tied.size(); ++n) {
      const std::string sep = n == 0 ? "" : n + 1 == tied.size() ? " and " : ", ";
      letters += sep + in_quotes(p.spell(TokenString{firsts[static_cast<std::size_t>(tied[n])]}));
      values += sep + number_text(wanted(tied[n]));
    }
    const double closest = fit_error(points, tied, wanted);
    found.push_back(
        {"position_one", TokenString{firsts[static_cast<std::size_t>(tied.front())]}, 1,
         lead + "W_V r_1, whatever W_q and W_k are): expected's component " +
             std::to_string(c + 1) + " at position 1 is " + values + " for " + letters +
             ", but no W_V maps their embeddings there within the tolerance " +
             number_text(p.tolerance) + " (the closest any W_V comes is " + number_text(closest) +
             " off); make expected at position 1 depend on the first letter as W_V r_1 can, as "
             "`pos == 1 ? … : …` does, or give these letters embeddings that tell them apart"});
  }
}

// The strings whose prefixes outside_values checks: every string of the longest exhaustive
// length whose count fits the budget (their prefixes are every shorter string), then the
// extra strings while the budget lasts.
std::vector<TokenString> strings_to_check(const Problem& p) {
  std::vector<TokenString> strings;
  const auto groups = p.representatives().size();
  int length = p.strings.exhaustive_length;
  while (length > 0 && exhaustive_count(groups, length) - exhaustive_count(groups, length - 1) >
                           limits::kObstacleStringBudget) {
    --length;
  }
  if (length > 0) {
    std::vector<std::size_t> digits(static_cast<std::size_t>(length), 0);
    while (true) {
      TokenString s;
      for (std::size_t d : digits) s.push_back(p.representatives()[d]);
      strings.push_back(std::move(s));
      std::size_t at = digits.size();
      while (at > 0 && ++digits[at - 1] == groups) digits[--at] = 0;
      if (at == 0) break;
    }
  }
  for (const TokenString& s : p.extra_strings()) {
    if (strings.size() >= limits::kObstacleStringBudget) break;
    strings.push_back(s);
  }
  return strings;
}

void outside_values(const Problem& p, std::vector<Obstacle>& found) {
  if (submits_values(p)) return;
  const double bound = p.tolerance + limits::kObstacleProofSlack;
  const Matrix& W_V = p.reference.W_V;
  std::set<std::vector<double>> reachable;  // (values seen, target) already proved reachable
  std::set<TokenString> shown;
  std::vector<Obstacle> all;
  for (const TokenString& s : strings_to_check(p)) {
    const auto L = static_cast<Eigen::Index>(s.size());
    Matrix values(W_V.rows(), L);
    for (Eigen::Index j = 0; j < L; ++j) {
      values.col(j) = W_V * embedding(p, s[static_cast<std::size_t>(j)], static_cast<int>(j) + 1);
    }
    const Matrix expected = expected_output(p, s);
    for (Eigen::Index i = 0; i < L; ++i) {
      const Eigen::Index seen = p.head.causal ? i + 1 : L;
      const Eigen::VectorXd target = expected.row(i).transpose();
      bool near_one = false;
      for (Eigen::Index j = 0; j < seen && !near_one; ++j) {
        near_one = (values.col(j) - target).cwiseAbs().maxCoeff() <= p.tolerance;
      }
      if (near_one) continue;
      // The distinct values seen, sorted, then the target: the program's whole input.
      std::vector<std::vector<double>> columns;
      for (Eigen::Index j = 0; j < seen; ++j) {
        columns.emplace_back(values.col(j).data(), values.col(j).data() + values.rows());
      }
      std::sort(columns.begin(), columns.end());
      columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
      std::vector<double> key;
      for (const auto& col : columns) key.insert(key.end(), col.begin(), col.end());
      key.insert(key.end(), target.data(), target.data() + target.size());
      if (reachable.count(key)) continue;
      Matrix distinct(W_V.rows(), static_cast<Eigen::Index>(columns.size()));
      for (std::size_t j = 0; j < columns.size(); ++j) {
        distinct.col(static_cast<Eigen::Index>(j)) =
            Eigen::Map<const Eigen::VectorXd>(columns[j].data(), W_V.rows());
      }
      const double closest = distance_to_mixtures(distinct, target);
      if (closest <= bound) {
        reachable.insert(std::move(key));
        continue;
      }
      const TokenString prefix(s.begin(), s.begin() + (p.head.causal ? i + 1 : L));
      if (!shown.insert(prefix).second) continue;
      // The values as the string meets them, each once.
      std::vector<std::vector<double>> met;
      for (Eigen::Index j = 0; j < seen; ++j) {
        std::vector<double> v(values.col(j).data(), values.col(j).data() + values.rows());
        if (std::find(met.begin(), met.end(), v) == met.end()) met.push_back(std::move(v));
      }
      std::string listed;
      const std::size_t listed_count = std::min<std::size_t>(met.size(), 4);
      for (std::size_t j = 0; j < listed_count; ++j) {
        listed += (j == 0                ? ""
                   : j + 1 == met.size() ? " and "
                                         : ", ") +
                  lists_told_apart(met[j], met[j]).first;
      }
      if (listed_count < met.size())
        listed += " and " + std::to_string(met.size() - listed_count) + " more";
      all.push_back({"outside_values", prefix, static_cast<int>(i) + 1,
                     "at position " + std::to_string(i + 1) + " of " + in_quotes(p.spell(prefix)) +
                         " expected is " + row_text(target) +
                         ", but the head's output there is a mixture of the values it attends "
                         "to (W_V r_j" +
                         std::string(p.head.causal ? " for j ≤ i" : "") + "), here " + listed +
                         ", and the closest mixture is " + number_text(closest) +
                         " off, over the tolerance " + number_text(p.tolerance) +
                         "; change expected there to a mixture of these values, or give "
                         "another W_V"});
    }
  }
  std::sort(all.begin(), all.end(), [](const Obstacle& a, const Obstacle& b) {
    return a.input != b.input ? shortlex_less(a.input, b.input) : a.position < b.position;
  });
  if (all.size() > limits::kMaxObstaclesPerKind) all.resize(limits::kMaxObstaclesPerKind);
  found.insert(found.end(), all.begin(), all.end());
}

}  // namespace

std::vector<Obstacle> find_obstacles(const Problem& problem) {
  std::vector<Obstacle> found;
  position_one(problem, found);
  outside_values(problem, found);
  return found;
}

}  // namespace headgrader

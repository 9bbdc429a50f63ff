#include "solve_search.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "headgrader/limits.h"
#include "portable_exp.h"

namespace headgrader {
namespace {

// Adam's constants: the usual ones, with a step large enough that scores sharpen quickly.
constexpr double kLearningRate = 0.05, kBeta1 = 0.9, kBeta2 = 0.999, kAdamEpsilon = 1e-8;
// The loss asks each component to stay within this fraction of the tolerance, so a head the
// loss likes passes the exact grader with room to spare.
constexpr double kAimedFraction = 0.5;
// Scores are scaled up by these factors in turn when a trained head fails.
constexpr double kScaleUps[] = {2, 4, 8, 16, 32, 64};

bool submitted(const Problem& p, const char* name) {
  return std::find(p.submit.begin(), p.submit.end(), name) != p.submit.end();
}

// A training string with its expected rows (L × n_v, row-major) and embeddings (L × n_e).
struct Sample {
  TokenString tokens;
  std::vector<double> expected, embedded;
};

// Each feature's largest size over the embeddings a string can hold (1 for a feature that is
// always 0). The search trains in features divided by it, so that a position feature of i²
// and a letter feature of 1 start on one footing; a head is multiplied back before grading.
std::vector<double> feature_scales(const Problem& p) {
  std::vector<double> scales(static_cast<std::size_t>(p.head.W_E.rows()), 0);
  for (Eigen::Index f = 0; f < p.head.W_E.rows(); ++f) {
    double largest = 0;
    for (Eigen::Index t = 0; t < p.head.W_E.cols(); ++t) {
      for (int i = 0; i < (p.head.W_P ? p.strings.max_length : 1); ++i) {
        const double x = p.head.W_E(f, t) + (p.head.W_P ? (*p.head.W_P)(f, i) : 0.0);
        largest = std::max(largest, std::abs(x));
      }
    }
    scales[static_cast<std::size_t>(f)] = largest > 0 ? largest : 1;
  }
  return scales;
}

// `head` with each column f multiplied (or, `back`, divided) by scales[f].
HeadWeights rescaled(HeadWeights head, const std::vector<double>& scales, bool back) {
  for (Matrix* m : {&head.W_q, &head.W_k, &head.W_V}) {
    for (Eigen::Index f = 0; f < m->cols(); ++f) {
      const double s = scales[static_cast<std::size_t>(f)];
      m->col(f) = back ? Eigen::VectorXd(m->col(f) / s) : Eigen::VectorXd(m->col(f) * s);
    }
  }
  return head;
}

Sample sample_of(const Problem& p, const TokenString& s, const std::vector<double>& scales) {
  Sample out{s, {}, {}};
  const Matrix e = expected_output(p, s);
  const auto L = static_cast<Eigen::Index>(s.size());
  for (Eigen::Index i = 0; i < L; ++i) {
    for (Eigen::Index c = 0; c < e.cols(); ++c) out.expected.push_back(e(i, c));
    for (Eigen::Index f = 0; f < p.head.W_E.rows(); ++f) {
      double x = p.head.W_E(f, s[static_cast<std::size_t>(i)]);
      if (p.head.W_P) x += (*p.head.W_P)(f, i);
      out.embedded.push_back(x / scales[static_cast<std::size_t>(f)]);
    }
  }
  return out;
}

// The strings trained on at first: each example and extra string in turn, then strings of
// the longest tested length drawn from the representatives, then the shortest tested ones,
// up to limits::kSolveStartStrings.
std::vector<TokenString> start_strings(const Problem& p) {
  std::set<TokenString> seen;
  std::vector<TokenString> out;
  const auto add = [&](const TokenString& s) {
    if (out.size() < limits::kSolveStartStrings && seen.insert(s).second) out.push_back(s);
  };
  const auto& reps = p.representatives();
  // Every string up to the first length whose count passes a quarter of the budget.
  std::vector<TokenString> level{{}};
  for (int length = 1; length <= p.strings.exhaustive_length; ++length) {
    if (level.size() * reps.size() > limits::kSolveStartStrings / 4) break;
    std::vector<TokenString> next;
    for (const TokenString& s : level) {
      for (int t : reps) {
        TokenString longer = s;
        longer.push_back(t);
        add(longer);
        next.push_back(std::move(longer));
      }
    }
    level = std::move(next);
  }
  for (std::size_t k = 0; k < p.extra_strings().size() && k < limits::kSolveStartStrings / 4; ++k) {
    add(p.extra_strings()[k]);
  }
  SplitMix64 draw(p.strings.seed);
  for (std::size_t n = 0; n < limits::kSolveStartStrings && p.strings.exhaustive_length > 0; ++n) {
    TokenString s(static_cast<std::size_t>(p.strings.exhaustive_length));
    for (int& t : s) t = reps[draw.next() % reps.size()];
    add(s);
  }
  return out;
}

// The free numbers: the submitted matrices, flattened row by row, in kWeightNames order.
struct Parameters {
  HeadWeights head;
  std::vector<const char*> names;  // submitted, in kWeightNames order

  std::size_t size() const {
    std::size_t n = 0;
    for (const char* name : names) n += static_cast<std::size_t>(head.by_name(name).size());
    return n;
  }
  void add(const std::vector<double>& step) {
    std::size_t k = 0;
    for (const char* name : names) {
      Matrix& m = head.by_name(name);
      for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) m(r, c) += step[k++];
    }
  }
};

// Loss and its gradient (accumulated into `grad`, laid out as Parameters) over the samples.
double loss_and_gradient(const Problem& p, const HeadWeights& w, const std::vector<Sample>& set,
                         const std::vector<const char*>& names, std::vector<double>& grad) {
  const auto ne = static_cast<std::size_t>(p.head.W_E.rows());
  const auto nq = static_cast<std::size_t>(w.W_q.rows());
  const auto nv = static_cast<std::size_t>(w.W_V.rows());
  const double aim = p.tolerance * kAimedFraction, scale = p.head.scale;
  Matrix gq = Matrix::Zero(w.W_q.rows(), w.W_q.cols()), gk = gq,
         gv = Matrix::Zero(w.W_V.rows(), w.W_V.cols());
  double loss = 0;
  std::vector<double> Q, K, V, A, dO, dA, dS, dQ, dK, dV;
  for (const Sample& s : set) {
    const std::size_t L = s.tokens.size();
    Q.assign(L * nq, 0);
    K.assign(L * nq, 0);
    V.assign(L * nv, 0);
    for (std::size_t i = 0; i < L; ++i) {
      const double* r = &s.embedded[i * ne];
      for (std::size_t a = 0; a < nq; ++a) {
        double q = 0, k = 0;
        for (std::size_t f = 0; f < ne; ++f) {
          q += w.W_q(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(f)) * r[f];
          k += w.W_k(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(f)) * r[f];
        }
        Q[i * nq + a] = q;
        K[i * nq + a] = k;
      }
      for (std::size_t c = 0; c < nv; ++c) {
        double v = 0;
        for (std::size_t f = 0; f < ne; ++f)
          v += w.W_V(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(f)) * r[f];
        V[i * nv + c] = v;
      }
    }
    A.assign(L * L, 0);
    std::vector<double> scores(L);
    for (std::size_t i = 0; i < L; ++i) {
      for (std::size_t j = 0; j < L; ++j) {
        double dot = 0;
        for (std::size_t a = 0; a < nq; ++a) dot += Q[i * nq + a] * K[j * nq + a];
        scores[j] = scale * dot;
      }
      const int last = p.head.causal ? static_cast<int>(i) : static_cast<int>(L) - 1;
      masked_softmax_row(scores.data(), static_cast<int>(L), last, &A[i * L]);
    }
    dO.assign(L * nv, 0);
    for (std::size_t i = 0; i < L; ++i) {
      for (std::size_t c = 0; c < nv; ++c) {
        double out = 0;
        for (std::size_t j = 0; j < L; ++j) out += A[i * L + j] * V[j * nv + c];
        const double d = out - s.expected[i * nv + c];
        const double excess = std::abs(d) - aim;
        if (excess > 0) {
          loss += excess * excess;
          dO[i * nv + c] = 2 * excess * (d > 0 ? 1 : -1);
        }
      }
    }
    dV.assign(L * nv, 0);
    dS.assign(L * L, 0);
    for (std::size_t i = 0; i < L; ++i) {
      double weighted = 0;
      std::vector<double> row(L, 0);
      for (std::size_t j = 0; j < L; ++j) {
        double g = 0;
        for (std::size_t c = 0; c < nv; ++c) {
          g += dO[i * nv + c] * V[j * nv + c];
          dV[j * nv + c] += A[i * L + j] * dO[i * nv + c];
        }
        row[j] = g;
        weighted += A[i * L + j] * g;
      }
      for (std::size_t j = 0; j < L; ++j)
        dS[i * L + j] = A[i * L + j] * (row[j] - weighted) * scale;
    }
    dQ.assign(L * nq, 0);
    dK.assign(L * nq, 0);
    for (std::size_t i = 0; i < L; ++i) {
      for (std::size_t j = 0; j < L; ++j) {
        const double g = dS[i * L + j];
        if (g == 0) continue;
        for (std::size_t a = 0; a < nq; ++a) {
          dQ[i * nq + a] += g * K[j * nq + a];
          dK[j * nq + a] += g * Q[i * nq + a];
        }
      }
    }
    for (std::size_t i = 0; i < L; ++i) {
      const double* r = &s.embedded[i * ne];
      for (std::size_t f = 0; f < ne; ++f) {
        const auto F = static_cast<Eigen::Index>(f);
        for (std::size_t a = 0; a < nq; ++a) {
          gq(static_cast<Eigen::Index>(a), F) += dQ[i * nq + a] * r[f];
          gk(static_cast<Eigen::Index>(a), F) += dK[i * nq + a] * r[f];
        }
        for (std::size_t c = 0; c < nv; ++c)
          gv(static_cast<Eigen::Index>(c), F) += dV[i * nv + c] * r[f];
      }
    }
  }
  grad.clear();
  for (const char* name : names) {
    const Matrix& g = std::string_view(name) == "W_q"   ? gq
                      : std::string_view(name) == "W_k" ? gk
                                                        : gv;
    for (Eigen::Index r = 0; r < g.rows(); ++r)
      for (Eigen::Index c = 0; c < g.cols(); ++c) grad.push_back(g(r, c));
  }
  return loss;
}

Matrix seeded(Eigen::Index rows, Eigen::Index cols, SplitMix64& draw) {
  Matrix m(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r)
    for (Eigen::Index c = 0; c < cols; ++c)
      m(r, c) = static_cast<double>(draw.next() >> 11) * 0x1p-53 * 2 - 1;  // in [−1, 1)
  return m;
}

bool better(const GradeReport& a, const GradeReport& b) { return a.passed_count > b.passed_count; }

}  // namespace

SearchOutcome search_head(const Problem& p, int n_q,
                          std::chrono::steady_clock::time_point deadline) {
  const auto ne = static_cast<Eigen::Index>(p.head.W_E.rows());
  Parameters params;
  for (const char* name : kWeightNames) {
    if (submitted(p, name)) params.names.push_back(name);
  }
  std::vector<Sample> start;
  const std::vector<double> scales = feature_scales(p);
  for (const TokenString& s : start_strings(p)) start.push_back(sample_of(p, s, scales));

  SearchOutcome outcome;
  bool have = false;
  const auto consider = [&](const HeadWeights& head) {
    GradeReport report = grade(p, head, limits::kSolveAddedFailures);
    if (!have || better(report, outcome.report)) {
      outcome.best = head;
      outcome.report = report;
      have = true;
    }
    return report;
  };
  for (int restart = 0; restart < limits::kSolveRestarts; ++restart) {
    SplitMix64 draw(0x5eed0000u + static_cast<std::uint64_t>(restart) * 7919 +
                    static_cast<std::uint64_t>(n_q) * 104729);
    params.head = rescaled(p.reference, scales, false);  // given ones kept; the rest drawn
    if (submitted(p, "W_q")) params.head.W_q = seeded(n_q, ne, draw);
    if (submitted(p, "W_k")) params.head.W_k = seeded(n_q, ne, draw);
    if (submitted(p, "W_V")) params.head.W_V = seeded(static_cast<Eigen::Index>(p.n_v), ne, draw);
    std::vector<Sample> set = start;
    std::set<TokenString> in_set;
    for (const Sample& s : set) in_set.insert(s.tokens);
    const std::size_t n = params.size();
    std::vector<double> m(n, 0), v(n, 0), grad, step(n);
    double beta1_t = 1, beta2_t = 1;  // kBeta1^t, kBeta2^t, by products (no pow)
    std::uint64_t previous_failed = UINT64_MAX;
    for (int round = 0; round < limits::kSolveRounds; ++round) {
      if (std::chrono::steady_clock::now() > deadline) {
        outcome.deadline_hit = true;
        return outcome;
      }
      for (int k = 0; k < limits::kSolveStepsPerRound; ++k) {
        const double loss = loss_and_gradient(p, params.head, set, params.names, grad);
        if (loss == 0) break;
        beta1_t *= kBeta1;
        beta2_t *= kBeta2;
        const double c1 = 1 - beta1_t, c2 = 1 - beta2_t;
        for (std::size_t i = 0; i < n; ++i) {
          m[i] = kBeta1 * m[i] + (1 - kBeta1) * grad[i];
          v[i] = kBeta2 * v[i] + (1 - kBeta2) * grad[i] * grad[i];
          step[i] = -kLearningRate * (m[i] / c1) / (std::sqrt(v[i] / c2) + kAdamEpsilon);
        }
        params.add(step);
      }
      const HeadWeights trained = rescaled(params.head, scales, true);
      GradeReport report = consider(trained);
      if (report.passed) return outcome;
      // Sharper attention: the same head with its scores scaled up.
      const char* sharpen = submitted(p, "W_q") ? "W_q" : submitted(p, "W_k") ? "W_k" : nullptr;
      if (sharpen != nullptr) {
        for (double factor : kScaleUps) {
          HeadWeights sharper = trained;
          sharper.by_name(sharpen) *= factor;
          if (consider(sharper).passed) return outcome;
        }
      }
      if (report.failed >= previous_failed) break;  // stalled: the next start does better
      previous_failed = report.failed;
      for (const Failure& f : report.failures) {
        if (in_set.insert(f.input).second) set.push_back(sample_of(p, f.input, scales));
      }
    }
  }
  return outcome;
}

}  // namespace headgrader

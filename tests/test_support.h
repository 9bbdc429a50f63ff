// Shared by the tests: the bundled problems, and an independent computation of the head
// (Eigen expressions and std::exp, the textbook way) to check the engine against.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "headgrader/attention.h"
#include "headgrader/grade.h"
#include "headgrader/limits.h"
#include "headgrader/problem.h"
#include "headgrader/report.h"

namespace headgrader::testing {

// Whether this build runs under AddressSanitizer: GCC says so with __SANITIZE_ADDRESS__,
// clang (which builds CI's sanitizer tree) with __has_feature(address_sanitizer).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
inline constexpr bool kUnderAddressSanitizer = __has_feature(address_sanitizer);
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif
// A test's size where a smaller one runs the same checks fewer times: `full` in the Release
// build, `sanitized` under AddressSanitizer, where each check runs several times slower and
// the sanitizer stage decides whether CI fits its hour.
constexpr int full_or_sanitized(int full, int sanitized) {
  return kUnderAddressSanitizer ? sanitized : full;
}

// The bundled problems' folder, and the requests most tests send, from Exercise 2 of the
// handout (consonant-anywhere): its solution; the key too soft to pass (W_k = [[0, 1]]: "ab"
// fails first); the solution with W_V's columns swapped (every string fails).
inline const std::string kProblemsDir = HEADGRADER_SOURCE_DIR "/problems";
inline const std::string kGradePath = "/v1/problems/consonant-anywhere/grade";
inline const std::string kHandoutSolution =
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})";
inline const std::string kWrongKey =
    R"({"W_q": [[1, 1]], "W_k": [[0, 1]], "W_V": [[1, 0], [0, 1]]})";
inline const std::string kSwappedValues =
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[0, 1], [1, 0]]})";

// `body` (a JSON object's text) with a "student" field added.
inline std::string with_student(const std::string& body, const std::string& student) {
  return body.substr(0, body.size() - 1) + R"(, "student": ")" + student + "\"}";
}

// A bundled problem's file as JSON, for tests that change a field or two of it.
inline nlohmann::json bundled_json(const std::string& id) {
  std::ifstream in(kProblemsDir + "/" + id + ".json");
  return nlohmann::json::parse(in);
}

// `problem` written into the folder `dir` as a problem file (named after its id).
inline void write_problem(const std::filesystem::path& dir, const nlohmann::json& problem) {
  std::ofstream(dir / (problem["id"].get<std::string>() + ".json")) << problem.dump(2);
}

// The handout's first-position tested on every string up to `length` (2^(length+1) − 2 over
// its two groups) and `random` more up to `max_length` (≥ length), made slow on purpose for
// the tests of long gradings: each position's W_P column gets its own small vowel feature
// (which the reference's key and values do not read), so no two positions share a kind
// (grader/token_kinds.h) and the set is judged prefix by prefix. The key is sharper than
// the bundled reference's: it passes at length 20 too.
inline nlohmann::json prefix_by_prefix_problem(const std::string& id, int length,
                                               int max_length = 0, int random = 0) {
  max_length = std::max(max_length, length);
  nlohmann::json problem = bundled_json("first-position");
  problem["id"] = id;
  for (auto& row : problem["W_P"]) row = nlohmann::json::array();
  for (int i = 0; i < max_length; ++i) {
    problem["W_P"][0].push_back((i + 1) / 1024.0);
    problem["W_P"][1].push_back(0);
    problem["W_P"][2].push_back(i == 0 ? 1 : 0);
  }
  problem["strings"] = {
      {"max_length", max_length}, {"exhaustive_length", length}, {"random", random}, {"seed", 7}};
  problem["reference"]["W_k"] = nlohmann::json::array({nlohmann::json::array({0, 0, 8})});
  return problem;
}

// The previous letter over every string up to `length` (the issue-23 benchmark's problem):
// W_P rows j and j², so no two positions share a kind (grader/token_kinds.h) and prefixes
// are judged from the (group, position) tables of grader/prefix_head.h; expected the letter
// before.
inline nlohmann::json previous_letter_problem(int length) {
  nlohmann::json j = bundled_json("first-position");
  j["id"] = "previous-" + std::to_string(length);
  j["W_E"].push_back(std::vector<int>(26, 0));
  nlohmann::json W_P = nlohmann::json::array();
  for (int f = 0; f < 4; ++f) W_P.push_back(nlohmann::json::array());
  for (int i = 1; i <= length; ++i) {
    W_P[0].push_back(0);
    W_P[1].push_back(0);
    W_P[2].push_back(i);
    W_P[3].push_back(i * i);
  }
  j["W_P"] = W_P;
  j["expected"] = "pos == 1 ? [is(consonant), 0] : [at(pos - 1, consonant), 0]";
  j["strings"] = {{"max_length", length}, {"exhaustive_length", length}};
  // score(i, j) = 10 (2(i − 1) j − j²): largest at j = i − 1.
  j["reference"] = {{"W_q", {{-20, -20, 20, 0}, {-10, -10, 0, 0}}},
                    {"W_k", {{0, 0, 1, 0}, {0, 0, 0, 1}}},
                    {"W_V", {{0, 1, 0, 0}, {0, 0, 0, 0}}}};
  return j;
}

// A problem written in the test, loaded (a defect fails the test and stops it: every test
// that loads one needs it).
inline Problem loaded_or_abort(const nlohmann::json& problem) {
  auto loaded = load_problem_text(problem.dump(), problem["id"].get<std::string>() + ".json");
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    for (const auto& d : *defects) ADD_FAILURE() << d.to_string();
    std::abort();
  }
  return std::get<Problem>(std::move(loaded));
}

// consonant-anywhere tested on 100 examples of `length` and nothing else ("b", vowels, then
// i in binary: 100 distinct strings). Graded over count states, so each grading takes
// microseconds, but a failing answer with max_failures 100 holds 100 traces of length ×
// length. The key is sharper than the bundled reference's: it passes at length 64 too.
inline nlohmann::json long_examples_problem(const std::string& id, int length) {
  nlohmann::json problem = bundled_json("consonant-anywhere");
  problem["id"] = id;
  nlohmann::json examples = nlohmann::json::array();
  for (int i = 0; i < 100; ++i) {
    std::string s = "b" + std::string(static_cast<std::size_t>(length - 1), 'a');
    for (int bit = 0; bit < 7; ++bit) {
      if ((i >> bit) & 1) s[static_cast<std::size_t>(length - 7 + bit)] = 'b';
    }
    examples.push_back(s);
  }
  problem["strings"] = {{"max_length", length}, {"exhaustive_length", 0}, {"examples", examples}};
  problem["reference"]["W_k"] = nlohmann::json::array({nlohmann::json::array({0, 8})});
  return problem;
}

inline const ProblemSet& bundled_problems() {
  static const ProblemSet set = [] {
    auto loaded = ProblemSet::load(kProblemsDir);
    if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
      for (const auto& d : *defects) ADD_FAILURE() << d.to_string();
      std::abort();
    }
    return std::get<ProblemSet>(std::move(loaded));
  }();
  return set;
}

inline const Problem& bundled(const std::string& id) {
  const Problem* p = bundled_problems().find(id);
  if (!p) std::abort();
  return *p;
}

// `spec` derived as the loader derives a file's (Problem::derive): how a test grades a
// problem over another tested set, by changing a copy of its spec, never of the Problem.
// `max_count_state_numbers` 0 derives no count states (grading finds them as it meets
// them, as for a problem whose graph would be too large). A defect fails the test.
inline Problem derive(const ProblemSpec& spec,
                      std::size_t max_count_state_numbers = limits::kMaxCountStateNumbers) {
  auto derived = Problem::derive(spec, spec.id + ".json", max_count_state_numbers);
  if (auto* defects = std::get_if<std::vector<Defect>>(&derived)) {
    for (const auto& d : *defects) ADD_FAILURE() << d.to_string();
    std::abort();
  }
  return std::get<Problem>(std::move(derived));
}

// `p` tested on its exhaustive set alone: no examples, no random strings.
inline Problem exhaustive_set_alone(const Problem& p) {
  ProblemSpec spec = p;
  spec.strings.examples.clear();
  spec.examples.clear();
  spec.strings.random = 0;
  return derive(spec);
}

// A path in a folder of this test process's own, removed when the process ends. CTest runs
// each test as its own process, two at a time, and gtest's TempDir() is one shared /tmp: tests
// that wrote "soft.json" there read each other's half-written files.
inline std::string private_temp_path(const std::string& name) {
  struct Folder {
    std::filesystem::path path =
        std::filesystem::path(::testing::TempDir()) / ("headgrader-" + std::to_string(::getpid()));
    Folder() { std::filesystem::create_directories(path); }
    ~Folder() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Folder folder;
  return (folder.path / name).string();
}

inline TokenString tokens_of(const Problem& p, const std::string& text) {
  TokenString out;
  for (char c : text) {
    const auto at = std::find(p.alphabet_chars.begin(), p.alphabet_chars.end(), char32_t(c));
    out.push_back(static_cast<int>(at - p.alphabet_chars.begin()));
  }
  return out;
}

inline Matrix rows(std::initializer_list<std::initializer_list<double>> values) {
  Matrix m(static_cast<Eigen::Index>(values.size()),
           static_cast<Eigen::Index>(values.begin()->size()));
  Eigen::Index i = 0;
  for (const auto& row : values) {
    Eigen::Index j = 0;
    for (double x : row) m(i, j++) = x;
    ++i;
  }
  return m;
}

// The head written independently of the engine: whole-matrix Eigen products, std::exp.
struct IndependentHead {
  Matrix R, Q, K, V, S, A, out;
};
inline IndependentHead independent_head(const HeadSpec& spec, const HeadWeights& w,
                                        const TokenString& s) {
  IndependentHead h;
  const auto L = static_cast<Eigen::Index>(s.size());
  h.R.resize(L, spec.W_E.rows());
  for (Eigen::Index i = 0; i < L; ++i) {
    h.R.row(i) = spec.W_E.col(s[i]).transpose();
    if (spec.W_P) h.R.row(i) += spec.W_P->col(i).transpose();
  }
  h.Q = h.R * w.W_q.transpose();
  h.K = h.R * w.W_k.transpose();
  h.V = h.R * w.W_V.transpose();
  h.S = spec.scale * h.Q * h.K.transpose();
  h.A = Matrix::Zero(L, L);
  for (Eigen::Index i = 0; i < L; ++i) {
    const Eigen::Index last = spec.causal ? i : L - 1;
    const double m = h.S.row(i).head(last + 1).maxCoeff();
    for (Eigen::Index j = 0; j <= last; ++j) h.A(i, j) = std::exp(h.S(i, j) - m);
    h.A.row(i) /= h.A.row(i).sum();
  }
  h.out = h.A * h.V;
  return h;
}

// Random heads for a problem, reproducible from a seed: of every sharpness up to the
// contract's limit of 1e6 per entry, half of them with the reference's values (so that
// some pass).
class RandomHeads {
 public:
  explicit RandomHeads(std::uint64_t seed) : rng_(seed) {}
  double uniform(double low, double high) {
    return low + (high - low) * static_cast<double>(rng_.next() >> 11) * 0x1p-53;
  }
  Matrix matrix(Eigen::Index r, Eigen::Index c, double range) {
    return Matrix::NullaryExpr(r, c, [&] { return uniform(-range, range); });
  }
  HeadWeights head(const Problem& p, int trial) {
    static constexpr double kRanges[] = {0.5, 3, 20, 1e3, 1e6};
    const double range = kRanges[trial % 5];
    const auto n_q = 1 + static_cast<Eigen::Index>(rng_.next() % 3);
    const auto n_e = static_cast<Eigen::Index>(p.n_e);
    Matrix V = matrix(static_cast<Eigen::Index>(p.n_v), n_e, 1.5);
    if (trial % 2 == 0) V = p.reference.W_V;
    return HeadWeights{matrix(n_q, n_e, range), matrix(n_q, n_e, range), V};
  }

 private:
  SplitMix64 rng_;
};

// Grading `p` (grade) gives exactly the report of running each tested string on its own
// (grade_each_string), for each max_failures tried (those that change which failures are
// kept, by default).
inline void expect_same_report(const Problem& p, const HeadWeights& w, const std::string& what,
                               std::vector<int> max_failures_tried = {0, 1, 3, 100}) {
  for (const int max_failures : max_failures_tried) {
    EXPECT_EQ(report_json(p, grade(p, w, max_failures)),
              report_json(p, grade_each_string(p, w, max_failures)))
        << what << ", max_failures " << max_failures;
  }
}

}  // namespace headgrader::testing

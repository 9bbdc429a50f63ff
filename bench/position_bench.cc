// Strings verified per second on problems whose rows depend on positions (issue 23,
// grader/token_kinds.h), beside grading each string on its own (grade_each_string):
//   - FirstPosition: the handout's first-position (W_P's columns 2… alike) at L = 8 … 24;
//   - Previous: the previous letter, W_P's columns all different (rows j and j²), expected
//     pos == 1 ? is(consonant) : at(pos - 1, consonant), at L = 12, 16, 20;
//   - Unmasked: first-position without the causal mask, at L = 8, 10, 12.
// "Load/" benchmarks load the problem too (parse, prove `expected` and the reference, build
// the count states) and then grade: the work of one `headgrader grade` process.
// Run: build-bench/bench/headgrader_bench --benchmark_filter='Position'
#include <benchmark/benchmark.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "headgrader/grade.h"
#include "headgrader/problem.h"

namespace headgrader {
namespace {

enum class Kind { kFirstPosition, kPrevious, kUnmasked };

nlohmann::json problem_json(Kind kind, int L) {
  std::ifstream in(HEADGRADER_SOURCE_DIR "/problems/first-position.json");
  nlohmann::json p = nlohmann::json::parse(in);
  p["id"] = "bench";
  p["strings"] = {{"max_length", L}, {"exhaustive_length", L}};
  nlohmann::json W_P = nlohmann::json::array(
      {nlohmann::json::array(), nlohmann::json::array(), nlohmann::json::array()});
  if (kind == Kind::kPrevious) {
    p["W_E"].push_back(std::vector<int>(26, 0));
    W_P.push_back(nlohmann::json::array());
    for (int j = 1; j <= L; ++j) {
      W_P[0].push_back(0);
      W_P[1].push_back(0);
      W_P[2].push_back(j);
      W_P[3].push_back(j * j);
    }
    p["expected"] = "pos == 1 ? [is(consonant), 0] : [at(pos - 1, consonant), 0]";
    // score(i, j) = 10 (2(i − 1) j − j²): largest at j = i − 1.
    p["reference"] = {{"W_q", {{-20, -20, 20, 0}, {-10, -10, 0, 0}}},
                      {"W_k", {{0, 0, 1, 0}, {0, 0, 0, 1}}},
                      {"W_V", {{0, 1, 0, 0}, {0, 0, 0, 0}}}};
  } else {
    for (int j = 1; j <= L; ++j) {
      W_P[0].push_back(0);
      W_P[1].push_back(0);
      W_P[2].push_back(j == 1 ? 1 : 0);
    }
    p["reference"]["W_k"] = {{0, 0, 10}};  // e^10 against 23 others at length 24
    if (kind == Kind::kUnmasked) p["causal"] = false;
  }
  p["W_P"] = W_P;
  return p;
}

Problem load_or_abort(const std::string& text) {
  auto loaded = load_problem_text(text, "bench.json");
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    for (const auto& d : *defects) std::fprintf(stderr, "%s\n", d.to_string().c_str());
    std::abort();
  }
  return std::get<Problem>(std::move(loaded));
}

// `each_string`: the baseline, every tested string run on its own.
void BM_PositionGrade(benchmark::State& state, Kind kind, bool each_string) {
  const Problem p = load_or_abort(problem_json(kind, static_cast<int>(state.range(0))).dump());
  std::uint64_t failed = 0;
  for (auto _ : state) {
    const GradeReport report =
        each_string ? grade_each_string(p, p.reference, 3) : grade(p, p.reference, 3);
    failed += report.failed;
    benchmark::DoNotOptimize(report.score);
  }
  if (failed != 0) state.SkipWithError("the reference should pass");
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * p.tested_total()));
  state.counters["strings"] = static_cast<double>(p.tested_total());
}

void BM_PositionLoadAndGrade(benchmark::State& state, Kind kind) {
  const std::string text = problem_json(kind, static_cast<int>(state.range(0))).dump();
  std::uint64_t tested = 0;
  for (auto _ : state) {
    const Problem p = load_or_abort(text);
    const GradeReport report = grade(p, p.reference, 3);
    if (!report.passed) state.SkipWithError("the reference should pass");
    tested = p.tested_total();
    benchmark::DoNotOptimize(report.score);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * tested));
  state.counters["strings"] = static_cast<double>(tested);
}

BENCHMARK_CAPTURE(BM_PositionGrade, FirstPosition, Kind::kFirstPosition, false)
    ->Name("PositionGrade/FirstPosition")
    ->Arg(8)
    ->Arg(16)
    ->Arg(20)
    ->Arg(24)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PositionLoadAndGrade, FirstPosition, Kind::kFirstPosition)
    ->Name("PositionLoad/FirstPosition")
    ->Arg(8)
    ->Arg(16)
    ->Arg(20)
    ->Arg(24)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PositionGrade, FirstPositionEach, Kind::kFirstPosition, true)
    ->Name("PositionEachString/FirstPosition")
    ->Arg(8)
    ->Arg(12)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(BM_PositionGrade, Previous, Kind::kPrevious, false)
    ->Name("PositionGrade/Previous")
    ->Arg(12)
    ->Arg(16)
    ->Arg(20)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PositionLoadAndGrade, Previous, Kind::kPrevious)
    ->Name("PositionLoad/Previous")
    ->Arg(12)
    ->Arg(16)
    ->Arg(20)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PositionGrade, PreviousEach, Kind::kPrevious, true)
    ->Name("PositionEachString/Previous")
    ->Arg(12)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(BM_PositionGrade, Unmasked, Kind::kUnmasked, false)
    ->Name("PositionGrade/Unmasked")
    ->Arg(8)
    ->Arg(10)
    ->Arg(12)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PositionLoadAndGrade, Unmasked, Kind::kUnmasked)
    ->Name("PositionLoad/Unmasked")
    ->Arg(8)
    ->Arg(10)
    ->Arg(12)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace headgrader

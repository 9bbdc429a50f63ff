// Strings verified per second on consonant-anywhere with every string up to length L tested
// (L = 8 … 24), by the prefix tree (grade) and one string at a time (grade_each_string, the
// baseline). Run: build-bench/bench/headgrader_bench [--benchmark_filter=Tree]
#include <benchmark/benchmark.h>

#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "headgrader/diagnosis.h"
#include "headgrader/grade.h"
#include "headgrader/grade_request.h"
#include "headgrader/problem.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"

namespace headgrader {
namespace {

// The bundled consonant-anywhere problem with max_length = exhaustive_length = L, no random
// strings, and a key sharp enough to pass at length 24 (e^10 against 23 vowels).
const HeadWeights& sharp_head() {
  static const HeadWeights w = [] {
    HeadWeights h;
    h.W_q = Matrix{{1, 1}};
    h.W_k = Matrix{{0, 10}};
    h.W_V = Matrix{{1, 0}, {0, 1}};
    return h;
  }();
  return w;
}

const Problem& problem_of_length(int L) {
  static std::map<int, std::unique_ptr<Problem>> cache;
  auto& slot = cache[L];
  if (!slot) {
    std::ifstream in(HEADGRADER_SOURCE_DIR "/problems/consonant-anywhere.json");
    auto json = nlohmann::ordered_json::parse(in);
    json["strings"] = {{"max_length", L}, {"exhaustive_length", L}};
    json["reference"] = {{"W_q", {{1, 1}}}, {"W_k", {{0, 10}}}, {"W_V", {{1, 0}, {0, 1}}}};
    auto loaded = load_problem_text(json.dump(), "consonant-anywhere.json");
    if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
      for (const auto& d : *defects) std::fprintf(stderr, "%s\n", d.to_string().c_str());
      std::abort();
    }
    slot = std::make_unique<Problem>(std::get<Problem>(std::move(loaded)));
  }
  return *slot;
}

template <GradeReport (*Grade)(const Problem&, const HeadWeights&, int)>
void BM_Grade(benchmark::State& state) {
  const Problem& p = problem_of_length(static_cast<int>(state.range(0)));
  std::uint64_t failed = 0;
  for (auto _ : state) {
    const auto report = Grade(p, sharp_head(), 3);
    failed += report.failed;
    benchmark::DoNotOptimize(report.score);
  }
  if (failed != 0) state.SkipWithError("the sharp head should pass");
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * p.tested_total()));
  state.counters["strings"] = static_cast<double>(p.tested_total());
}

BENCHMARK(BM_Grade<grade>)->Name("Tree")->DenseRange(8, 24, 4)->Unit(benchmark::kMillisecond);

// A soft key (e^2 against the vowels) that fails most strings: a passing head is done once
// every count state passes, a failing one has its failures counted over the states and the
// first three traced.
void BM_GradeFailing(benchmark::State& state) {
  const Problem& p = problem_of_length(static_cast<int>(state.range(0)));
  const HeadWeights soft{Matrix{{1, 1}}, Matrix{{0, 2}}, Matrix{{1, 0}, {0, 1}}};
  std::uint64_t failed = 0;
  for (auto _ : state) {
    const auto report = grade(p, soft, 3);
    failed = report.failed;
    benchmark::DoNotOptimize(report.score);
  }
  if (failed == 0) state.SkipWithError("the soft head should fail");
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * p.tested_total()));
  state.counters["strings"] = static_cast<double>(p.tested_total());
  state.counters["failed"] = static_cast<double>(failed);
}
BENCHMARK(BM_GradeFailing)
    ->Name("TreeFailing")
    ->DenseRange(8, 24, 4)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Grade<grade_each_string>)
    ->Name("EachString")
    ->DenseRange(8, 16, 4)
    ->Unit(benchmark::kMillisecond);

// The bundled problems as served: one grade request's engine time.
void BM_BundledGrade(benchmark::State& state) {
  static const char* kIds[] = {"consonant-anywhere", "consonant-proportion", "first-position"};
  static auto loaded = ProblemSet::load(HEADGRADER_SOURCE_DIR "/problems");
  const auto& set = std::get<ProblemSet>(loaded);
  const Problem& p = *set.find(kIds[state.range(0)]);
  for (auto _ : state) benchmark::DoNotOptimize(grade(p, p.reference, 3).score);
  state.SetLabel(p.id);
}
BENCHMARK(BM_BundledGrade)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace headgrader

namespace headgrader {
namespace {

// One grade request's engine work, as the server does it: parse and check the body, grade,
// render the answer.
void BM_GradeRequest(benchmark::State& state) {
  static auto loaded = ProblemSet::load(HEADGRADER_SOURCE_DIR "/problems");
  const Problem& p = *std::get<ProblemSet>(loaded).find("consonant-anywhere");
  const std::string body = R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})";
  for (auto _ : state) {
    auto submission = parse_submission(p, body);
    const auto report = grade(p, submission->weights, submission->max_failures);
    benchmark::DoNotOptimize(report_json(p, report));
  }
}
BENCHMARK(BM_GradeRequest)->Unit(benchmark::kMicrosecond);

// Its three parts on their own: parse and check, grade, render.
void BM_GradeRequestPart(benchmark::State& state) {
  static auto loaded = ProblemSet::load(HEADGRADER_SOURCE_DIR "/problems");
  const Problem& p = *std::get<ProblemSet>(loaded).find("consonant-anywhere");
  const std::string body = R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})";
  auto submission = parse_submission(p, body);
  const auto report = grade(p, submission->weights, submission->max_failures);
  for (auto _ : state) {
    switch (state.range(0)) {
      case 0:
        benchmark::DoNotOptimize(parse_submission(p, body));
        break;
      case 1:
        benchmark::DoNotOptimize(grade(p, submission->weights, 3).score);
        break;
      default:
        benchmark::DoNotOptimize(report_json(p, report));
        break;
    }
  }
  static const char* kParts[] = {"parse", "grade", "render"};
  state.SetLabel(kParts[state.range(0)]);
}
BENCHMARK(BM_GradeRequestPart)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

// A failing grade request's engine work with and without its diagnosis (API.md §13), on the
// soft keys of the README and the issue: parse, grade, render; then the same with
// grade_with_diagnosis. Arg 0/1: consonant-anywhere with W_k = [0, 2] (key_too_soft found by
// bisection), without/with; 2/3: first-position with W_k = [0, 5, 0] (no_position_feature,
// graded string by string), without/with. docs/diagnosis.md has the figures.
void BM_FailingGradeRequest(benchmark::State& state) {
  static auto loaded = ProblemSet::load(HEADGRADER_SOURCE_DIR "/problems");
  const bool first = state.range(0) >= 2, diagnosed = state.range(0) % 2 == 1;
  const Problem& p =
      *std::get<ProblemSet>(loaded).find(first ? "first-position" : "consonant-anywhere");
  const std::string body =
      first ? R"({"W_q": [[1, 1, 0]], "W_k": [[0, 5, 0]], "W_V": [[0, 1, 0], [0, 0, 0]]})"
            : R"({"W_q": [[1, 1]], "W_k": [[0, 2]], "W_V": [[1, 0], [0, 1]]})";
  std::size_t found = 0;
  for (auto _ : state) {
    auto submission = parse_submission(p, body);
    const auto report = diagnosed
                            ? grade_with_diagnosis(p, submission->weights, submission->max_failures)
                            : grade(p, submission->weights, submission->max_failures);
    found = report.diagnosis.size();
    benchmark::DoNotOptimize(report_json(p, report));
  }
  if (diagnosed && found != 1) state.SkipWithError("expected one diagnosis");
  state.SetLabel(std::string(p.id) + (diagnosed ? " with diagnosis" : " without"));
  if (diagnosed) {
    auto submission = parse_submission(p, body);
    state.counters["gradings"] = diagnose(p, submission->weights).gradings;
  }
}
BENCHMARK(BM_FailingGradeRequest)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

// The grade route's engine work exactly as the server does it (headgrader/grade_request.h):
// the body parsed and checked, graded with its diagnosis or margin, rendered. Arg 0: the
// handout solution (passes); 1: the handout's soft key W_k = [[0, 2]] (fails, key_too_soft).
// What the HTTP layer adds is measured by bench/http_bench.sh.
void BM_GradeSubmission(benchmark::State& state) {
  static auto loaded = ProblemSet::load(HEADGRADER_SOURCE_DIR "/problems");
  const Problem& p = *std::get<ProblemSet>(loaded).find("consonant-anywhere");
  const bool failing = state.range(0) == 1;
  const std::string body = failing
                               ? R"({"W_q": [[1, 1]], "W_k": [[0, 2]], "W_V": [[1, 0], [0, 1]]})"
                               : R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})";
  bool passed = false;
  for (auto _ : state) {
    const auto submission = parse_submission(p, body);
    const Graded graded = grade_submission(p, *submission);
    passed = graded.report.passed;
    benchmark::DoNotOptimize(graded.answer.data());
  }
  if (passed == failing) state.SkipWithError(failing ? "should fail" : "should pass");
  state.SetLabel(failing ? "failing" : "passing");
}
BENCHMARK(BM_GradeSubmission)->DenseRange(0, 1)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace headgrader

BENCHMARK_MAIN();

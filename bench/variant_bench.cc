// Variants and integrity (issue 39, API.md §15), the engine's part:
//   - VariantDerive/<problem>: a new student's variant, derive_relabeling and relabel_problem
//     (the relabeled problem derived again, its reference proved by grading), a different
//     student each iteration so nothing is reused; the mean is the benchmark's time, the
//     slowest iteration the counter `worst_ms`. Goal: < 50 ms for the bundled problems.
//   - VariantRelabeling/<problem>: derive_relabeling alone (a student's HMAC and its stream).
//   - VariantGrade/<problem>/<passing|failing>: grade() of the same head on the problem as
//     written and, written in the student's coordinates (to_student_coordinates), on one
//     student's relabeled problem: the same strings, so the two should cost the same (goal: a
//     variant at most 1.1× the base; the counter `ratio`).
//   - CompareHeads/<n>: compare_heads over n random heads (a tenth of them planted copies,
//     literal or with W_q scaled and W_k scaled back), the integrity route's O(n log n) part.
// Each bundled problem is given `variants` (both permutations, feature_scales [1, 2, 0.5]) in
// memory when its file has none.
// Run: build/bench/headgrader_bench --benchmark_filter='Variant|CompareHeads'
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "headgrader/grade.h"
#include "headgrader/integrity.h"
#include "headgrader/problem.h"
#include "headgrader/variant.h"

namespace headgrader {
namespace {

constexpr const char* kVariantBundled[] = {"consonant-anywhere", "consonant-proportion",
                                           "first-position"};
// At least 32 bytes, as --variant-secret requires.
constexpr std::string_view kVariantSecret = "variant-bench-secret-0123456789abcdef";

Problem variant_problem_or_abort(const nlohmann::json& j) {
  auto loaded = load_problem_text(j.dump(), j.value("id", "bench") + ".json");
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    for (const auto& d : *defects) std::fprintf(stderr, "%s\n", d.to_string().c_str());
    std::abort();
  }
  return std::get<Problem>(std::move(loaded));
}

// The bundled problem kVariantBundled[index] with every relabeling on, loaded once.
const Problem& with_variants(std::size_t index) {
  static std::vector<std::unique_ptr<const Problem>> problems = [] {
    std::vector<std::unique_ptr<const Problem>> loaded;
    for (const char* id : kVariantBundled) {
      std::ifstream in(std::string(HEADGRADER_SOURCE_DIR "/problems/") + id + ".json");
      nlohmann::json j = nlohmann::json::parse(in);
      if (!j.contains("variants")) {
        j["variants"] = {
            {"permute_features", true}, {"permute_outputs", true}, {"feature_scales", {1, 2, 0.5}}};
      }
      loaded.push_back(std::make_unique<const Problem>(variant_problem_or_abort(j)));
    }
    return loaded;
  }();
  return *problems[index];
}

Problem relabeled_or_abort(const Problem& p, const Relabeling& r) {
  auto derived = relabel_problem(p, r);
  if (auto* defects = std::get_if<std::vector<Defect>>(&derived)) {
    for (const auto& d : *defects) std::fprintf(stderr, "%s\n", d.to_string().c_str());
    std::abort();
  }
  return std::get<Problem>(std::move(derived));
}

void BM_VariantDerive(benchmark::State& state) {
  const Problem& p = with_variants(static_cast<std::size_t>(state.range(0)));
  // Students never seen before, across repetitions too.
  static std::uint64_t next_student = 0;
  double worst = 0;
  std::uint64_t defects = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const Relabeling r =
        derive_relabeling(kVariantSecret, p, "student-" + std::to_string(next_student++));
    auto derived = relabel_problem(p, r);
    const auto end = std::chrono::steady_clock::now();
    worst = std::max(worst, std::chrono::duration<double, std::milli>(end - start).count());
    defects += std::holds_alternative<std::vector<Defect>>(derived) ? 1 : 0;
    benchmark::DoNotOptimize(derived);
  }
  if (defects != 0) state.SkipWithError("a variant was refused");
  state.SetLabel(p.id);
  state.counters["worst_ms"] = worst;
}
BENCHMARK(BM_VariantDerive)->Name("VariantDerive")->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

// derive_relabeling alone, for a student never seen before at each iteration: the HMAC and
// the SHA-256 stream a server computes on every grading that names a student.
void BM_VariantRelabeling(benchmark::State& state) {
  const Problem& p = with_variants(static_cast<std::size_t>(state.range(0)));
  std::uint64_t student = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        derive_relabeling(kVariantSecret, p, "student-" + std::to_string(student++)));
  }
  state.SetLabel(p.id);
}
BENCHMARK(BM_VariantRelabeling)
    ->Name("VariantRelabeling")
    ->DenseRange(0, 2)
    ->Unit(benchmark::kMicrosecond);

// Arg 0: the problem; 1: 0 the reference, 1 a failing head (the reference's W_k × 0.4, the
// handout's soft key on consonant-anywhere; with W_V halved where the soft key still passes,
// as on consonant-proportion, whose keys are all alike). Each iteration grades the head on the
// base problem and on the variant, alternating which goes first, each timed on its own, so
// that both see the same load: the counters base_us and variant_us are their means, ratio is
// variant ÷ base (goal ≤ 1.1).
void BM_VariantGrade(benchmark::State& state) {
  const Problem& base = with_variants(static_cast<std::size_t>(state.range(0)));
  const bool failing = state.range(1) == 1;
  HeadWeights head = base.reference;
  if (failing) {
    head.W_k *= 0.4;
    if (grade(base, head, 0).passed) head.W_V *= 0.5;
  }
  // One student whose relabeling moves the rows (not the identity).
  Relabeling r;
  for (int s = 0; r.features.empty() || std::is_sorted(r.features.begin(), r.features.end()); ++s) {
    r = derive_relabeling(kVariantSecret, base, "student-grade-" + std::to_string(s));
  }
  const Problem student = relabeled_or_abort(base, r);
  const HeadWeights student_head = to_student_coordinates(base, r, head);
  using Clock = std::chrono::steady_clock;
  Clock::duration on_base{}, on_variant{};
  GradeReport base_report, variant_report;
  bool variant_first = false;
  for (auto _ : state) {
    for (int k = 0; k < 2; ++k) {
      const bool variant = (k == 0) == variant_first;
      const auto start = Clock::now();
      GradeReport report = variant ? grade(student, student_head, 3) : grade(base, head, 3);
      (variant ? on_variant : on_base) += Clock::now() - start;
      benchmark::DoNotOptimize(report.score);
      (variant ? variant_report : base_report) = std::move(report);
    }
    variant_first = !variant_first;
  }
  if (base_report.passed == failing || variant_report.passed == failing) {
    state.SkipWithError(failing ? "should fail" : "should pass");
  }
  if (student.tested_total() != base.tested_total() ||
      variant_report.failed != base_report.failed) {
    state.SkipWithError("the variant should test the same strings with the same outcome");
  }
  const auto micros = [&](Clock::duration d) {
    return std::chrono::duration<double, std::micro>(d).count() /
           static_cast<double>(state.iterations());
  };
  state.SetLabel(std::string(base.id) + " " + student.variant +
                 (failing ? " failing" : " passing"));
  state.counters["strings"] = static_cast<double>(base.tested_total());
  state.counters["failed"] = static_cast<double>(base_report.failed);
  state.counters["base_us"] = micros(on_base);
  state.counters["variant_us"] = micros(on_variant);
  state.counters["ratio"] = micros(on_variant) / micros(on_base);
}
BENCHMARK(BM_VariantGrade)
    ->Name("VariantGrade")
    ->ArgsProduct({{0, 1, 2}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

// n random heads of consonant-anywhere's shape (W_q, W_k 1 × 2, W_V 2 × 2), each its own
// student; every tenth a copy of an earlier one, alternately literal and with W_q × 3 and
// W_k / 3 (same after relabeling).
std::vector<IntegrityEntry> random_entries(std::size_t n) {
  std::mt19937_64 rng(39);
  std::uniform_real_distribution<double> value(-5, 5);
  auto random_matrix = [&](Eigen::Index rows, Eigen::Index cols) {
    Matrix m(rows, cols);
    for (Eigen::Index i = 0; i < rows; ++i) {
      for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = value(rng);
    }
    return m;
  };
  std::vector<IntegrityEntry> entries;
  entries.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    IntegrityEntry e;
    char name[32];
    std::snprintf(name, sizeof name, "s%06zu", i);
    e.student = name;
    e.submission_id = "sub" + e.student;
    if (i % 10 == 9) {
      const IntegrityEntry& original = entries[i / 2];
      e.sent = original.sent;
      if (i % 20 == 19) {
        e.sent.W_q *= 3;
        e.sent.W_k /= 3;
      }
    } else {
      e.sent = HeadWeights{random_matrix(1, 2), random_matrix(1, 2), random_matrix(2, 2)};
    }
    e.in_problem = e.sent;
    entries.push_back(std::move(e));
  }
  return entries;
}

void BM_CompareHeads(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<IntegrityEntry> entries = random_entries(n);
  const HeadWeights reference = with_variants(0).reference;
  std::size_t groups = 0;
  for (auto _ : state) {
    const IntegrityReport report = compare_heads(entries, reference);
    groups = report.shared.size();
    benchmark::DoNotOptimize(report.shared.data());
  }
  // Each copy joins its original: n / 10 groups of two (an original copied twice makes one
  // group of three, so a few fewer).
  if (groups == 0 || groups > n / 10) state.SkipWithError("the planted copies were not found");
  state.counters["groups"] = static_cast<double>(groups);
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_CompareHeads)
    ->Name("CompareHeads")
    ->RangeMultiplier(10)
    ->Range(1000, 100000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oNLogN);

}  // namespace
}  // namespace headgrader

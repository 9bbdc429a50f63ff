// An lms key's attempt window (API.md §8: with --rate-limit N/PERIOD, a key may send at most
// 100 x N gradings a window in all), counted by the store as each grading the key sends is:
// SubmissionStore::gradings_since() with a cap of 3 000 (`--rate-limit 30/1h`) over a store
// that holds `state.range(0)` gradings of the key in the window, one in 50 of them a regrade
// (which the window leaves out). The figure is the time of one count: an io thread waits for
// it before the grading starts. PostgreSQL's rows are as a rush leaves them, not yet vacuumed.
//
//   build-bench/bench/headgrader_bench --benchmark_filter=KeyWindow
//   scripts/with-postgres.sh sh -c 'HEADGRADER_BENCH_POSTGRES=$HEADGRADER_TEST_POSTGRES
//     build-bench/bench/headgrader_bench --benchmark_filter=KeyWindow'
#include <benchmark/benchmark.h>

#include <string>

#include "store_bench_records.h"
#include "submission_store.h"

namespace {

using headgrader::bench::commit_and_wait;
using headgrader::bench::kBenchT0;
using headgrader::store::RateScope;

constexpr std::int64_t kCap = 3'000;

// Both stores alike: 20 000 gradings of the key, each count timed on the wall clock (the
// process waits for the database, so its own CPU would say nothing).
void window_settings(benchmark::internal::Benchmark* b) {
  b->Arg(20'000)->Unit(benchmark::kMicrosecond)->UseRealTime()->MinTime(2);
}

void run_window(benchmark::State& state, const std::string& url) {
  auto opened = headgrader::store::open_store(url);
  if (!opened) {
    state.SkipWithError(opened.error().message.c_str());
    return;
  }
  headgrader::store::SubmissionStore& store = **opened;
  // A key of its own each time the library calls this (PostgreSQL's database outlives a call).
  static int calls = 0;
  const std::string name = "canvas-" + std::to_string(++calls);
  std::int64_t made = 0;
  while (made < state.range(0)) commit_and_wait(store, 64, made, name, /*regrade_every=*/50);
  const RateScope key{RateScope::Kind::kKey, "", "", name};
  for (auto _ : state) {
    auto used = store.gradings_since(key, kBenchT0, kCap);
    if (!used || used->count != kCap) {
      state.SkipWithError("the window did not count to its cap");
      break;
    }
  }
  store.close();
}

void BM_KeyWindowSqlite(benchmark::State& state) {
  headgrader::bench::on_sqlite(state, run_window);
}
BENCHMARK(BM_KeyWindowSqlite)->Apply(window_settings);

void BM_KeyWindowPostgres(benchmark::State& state) {
  headgrader::bench::on_postgres(state, run_window);
}
BENCHMARK(BM_KeyWindowPostgres)->Apply(window_settings);

}  // namespace

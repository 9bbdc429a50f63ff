// The submission store alone, without HTTP: batches of N records committed through
// SubmissionStore::commit() and waited for, as N io threads' gradings would be. The figure that
// matters is the process's CPU time per record (`cpu_us_per_record`: every thread, the
// committer's and the WAL checkpointer's included), which the HTTP benchmark can only see
// through a VM's noise: the store's share of a grading, and what a change of it saves.
// Each record is the size of bench/http_bench.lua's (a 59-byte body, a 949-byte answer).
//
//   build-bench/bench/headgrader_bench --benchmark_filter=StoreCommit
//   PostgreSQL too, on a throwaway server (one command):
//     scripts/with-postgres.sh sh -c 'HEADGRADER_BENCH_POSTGRES=$HEADGRADER_TEST_POSTGRES
//       build-bench/bench/headgrader_bench --benchmark_filter=StoreCommit'
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <string>

#include "store_bench_records.h"
#include "submission_store.h"

namespace {

using headgrader::bench::commit_and_wait;
using headgrader::store::SubmissionStore;

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void run_store(benchmark::State& state, const std::string& url) {
  auto opened = headgrader::store::open_store(url);
  if (!opened) {
    state.SkipWithError(opened.error().message.c_str());
    return;
  }
  SubmissionStore& store = **opened;
  std::int64_t made = 0;
  const double cpu_before = process_cpu_seconds();
  for (auto _ : state) commit_and_wait(store, state.range(0), made);
  const double cpu = process_cpu_seconds() - cpu_before;
  state.SetItemsProcessed(made);
  state.counters["cpu_us_per_record"] = cpu * 1e6 / static_cast<double>(made);
  store.close();
}

void BM_StoreCommitSqlite(benchmark::State& state) {
  headgrader::bench::on_sqlite(state, run_store);
}
BENCHMARK(BM_StoreCommitSqlite)->Arg(1)->Arg(20)->Arg(64)->UseRealTime()->MinTime(3);

void BM_StoreCommitPostgres(benchmark::State& state) {
  headgrader::bench::on_postgres(state, run_store);
}
BENCHMARK(BM_StoreCommitPostgres)->Arg(1)->Arg(20)->Arg(64)->UseRealTime()->MinTime(3);

}  // namespace

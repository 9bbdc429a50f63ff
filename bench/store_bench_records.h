// What the store benchmarks commit: records the size of bench/http_bench.lua's (a 59-byte
// body, a 949-byte answer), and a batch of them committed at once and waited for, as that many
// io threads' gradings would be; and the two stores they run on.
#pragma once

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>

#include "submission_store.h"

namespace headgrader::bench {

inline constexpr store::TimeMs kBenchT0 = 1'780'000'000'000;

// The n-th record: 16 a millisecond, from a fixed time.
inline store::SubmissionRecord bench_record(std::int64_t n) {
  store::SubmissionRecord r;
  r.time = kBenchT0 + n / 16;
  r.id = store::new_submission_id(r.time);
  r.problem = "consonant-anywhere";
  r.problem_sha256 = std::string(64, 'a');
  r.body = std::string(59, 'b');
  r.passed = true;
  r.score = 1;
  r.tests_total = r.tests_passed = 697;
  r.answer = std::string(949, 'c');
  return r;
}

// Commits `batch` records at once and waits for every one's outcome. `key` names the records'
// key (none when empty); with `regrade_every` > 0, every regrade_every-th record is a regrade.
inline void commit_and_wait(store::SubmissionStore& store, std::int64_t batch, std::int64_t& made,
                            const std::string& key = "", std::int64_t regrade_every = 0) {
  std::mutex mutex;
  std::condition_variable all_done;
  std::int64_t left = batch;
  bool failed = false;
  for (std::int64_t i = 0; i < batch; ++i) {
    store::SubmissionRecord record = bench_record(made++);
    if (!key.empty()) record.key = key;
    if (regrade_every > 0 && made % regrade_every == 0) record.regrade_of = "0";
    store.commit(std::move(record), std::nullopt, [&](auto outcome) {
      const std::lock_guard lock(mutex);
      failed = failed || !outcome;
      if (--left == 0) all_done.notify_one();
    });
  }
  std::unique_lock lock(mutex);
  all_done.wait(lock, [&] { return left == 0; });
  if (failed) std::abort();  // a benchmark of failures would measure nothing
}

// A benchmark body over the store at `url`.
using StoreRun = void (*)(benchmark::State& state, const std::string& url);

// `run` on a SQLite file in a temporary folder of its own, removed afterwards.
inline void on_sqlite(benchmark::State& state, StoreRun run) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() /
                                       ("headgrader-store-bench-" + std::to_string(getpid()));
  std::filesystem::create_directories(folder);
  run(state, "sqlite:" + (folder / "s.db").string());
  std::filesystem::remove_all(folder);
}

// `run` on the PostgreSQL database that HEADGRADER_BENCH_POSTGRES names; skipped without it.
inline void on_postgres(benchmark::State& state, StoreRun run) {
  const char* url = std::getenv("HEADGRADER_BENCH_POSTGRES");
  if (url == nullptr) {
    state.SkipWithError("HEADGRADER_BENCH_POSTGRES is not set (see the benchmark's file head)");
    return;
  }
  run(state, url);
}

}  // namespace headgrader::bench

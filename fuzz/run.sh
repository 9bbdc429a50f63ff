#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan+UBSan) in build-fuzz and runs each for SECONDS
# (default 30), one after another, from the seed corpora in fuzz/corpus/<harness>/. New inputs
# go to <tree>/corpus/<harness>/ (the seeds stay as checked in); a crash, leak or timeout
# is written to <tree>/findings/<harness>/ and makes the script exit 1.
# Usage: fuzz/run.sh [SECONDS]   (env FUZZ_JOBS=N: harnesses run N at a time; default 1;
#                                 FUZZ_OPT: the optimisation flags, default -O1 line tables;
#                                 FUZZ_BUILD_DIR=TREE: a tree already configured with clang and
#                                 -DHEADGRADER_FUZZ=ON, e.g. scripts/test.sh's build-asan,
#                                 instead of build-fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
parallel=${FUZZ_JOBS:-1}
harnesses=(http_request submission problem_file)
tree=${FUZZ_BUILD_DIR:-build-fuzz}

if [[ -z ${FUZZ_BUILD_DIR:-} ]]; then
  # -O1 with line tables (FUZZ_OPT to change it): about half the build time of -O2 -g, and a
  # finding's stack still names file and line.
  # HEADGRADER_UNITY: Session's and Router's files one unit each, as in the other CI trees.
  # HEADGRADER_WERROR: clang warns where GCC does not.
  CXX=${CXX:-clang++} cmake -S . -B build-fuzz -DHEADGRADER_FUZZ=ON -DBUILD_TESTING=OFF \
    -DHEADGRADER_UNITY=ON -DHEADGRADER_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="${FUZZ_OPT:--O1 -gline-tables-only -DNDEBUG}" >/dev/null
fi
cmake --build "$tree" -j2 --target "${harnesses[@]/#/fuzz_}"

run_one() {
  local name=$1 work=$tree/corpus/$1 findings=$tree/findings/$1
  mkdir -p "$work" "$findings"
  # -timeout: one input over 5 s is a finding; -rss_limit_mb: so is 2 GiB of memory. A
  # problem file at the tested-set budget (40 M strings) legitimately takes seconds to prove
  # under the fuzzer's instrumentation (0.5 s in Release), so that harness gets 30 s. A
  # slow unit is written to findings/ only past that timeout, where it is a finding anyway.
  local timeout=5
  [[ $name == problem_file ]] && timeout=30
  "$tree/fuzz/fuzz_$name" "$work" "fuzz/corpus/$name" -max_total_time="$seconds" \
    -rss_limit_mb=2048 -timeout="$timeout" -report_slow_units="$timeout" -max_len=65536 \
    -print_final_stats=1 \
    -artifact_prefix="$findings/" >"$tree/fuzz_$name.log" 2>&1 || true
}

pids=()
for name in "${harnesses[@]}"; do
  run_one "$name" &
  pids+=($!)
  if ((${#pids[@]} >= parallel)); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
wait

status=0
printf '%-14s %12s %10s %s\n' harness executions exec/s findings
for name in "${harnesses[@]}"; do
  log=$tree/fuzz_$name.log
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  found=$(find "$tree/findings/$name" -type f | wc -l)
  printf '%-14s %12s %10s %s\n' "$name" "${execs:-?}" "${rate:-?}" "$found"
  if ((found > 0)) || [[ -z $execs ]]; then
    status=1
    find "$tree/findings/$name" -type f | sed 's/^/  finding: /'
    grep -m3 -E 'ERROR|runtime error|SUMMARY' "$log" | sed 's/^/  /' || true
  fi
done
exit $status

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the libFuzzer harnesses (clang, ASan+UBSan) into build-fuzz/ and runs each for
# SECONDS_PER_HARNESS (default 60) over seeds from tools/fuzz/make_seeds.sh, keeping the
# grown corpus in build-fuzz/fuzz-corpus/ENTRY. Prints one line per harness:
#   ENTRY  SECONDS  EXECUTIONS  EXEC/S  CORPUS  CRASHES
# and the crashing inputs (build-fuzz/fuzz-artifacts/ENTRY/). Exit 1 when any harness crashed.
# Environment: HARNESSES="cpulist json" to run only some; FUZZ_BUILD_DIR (default build-fuzz);
# FUZZ_JOBS=N runs N harnesses at a time (default 1).
# Usage: tools/fuzz/run.sh [SECONDS_PER_HARNESS]
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${1:-60}
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
ALL=(cpulist specs capabilities nodedev domain hwloc json hook fitrequest fithost hostcells)
read -r -a ENTRIES <<<"${HARNESSES:-${ALL[*]}}"
JOBS=${FUZZ_JOBS:-1}

if ! command -v clang++ >/dev/null; then
  sudo=(); [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  echo "run.sh: installing clang" >&2
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends clang >/dev/null
fi
CC=clang CXX=clang++ cmake -S . -B "$BUILD" -DNUMAPLACE_FUZZ=ON -DNUMAPLACE_BENCHMARKS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target "${ENTRIES[@]/#/fuzz_}" >/dev/null
SHARED=$(sed -n 's/^NUMAPLACE_SHARED_DIR:PATH=//p' "$BUILD/CMakeCache.txt")
bash tools/fuzz/make_seeds.sh "$BUILD/fuzz-seeds" "${SHARED:-$BUILD/test-data}" >/dev/null

run_one() {
  local entry=$1 corpus="$BUILD/fuzz-corpus/$1" artifacts="$BUILD/fuzz-artifacts/$1" log="$BUILD/fuzz-logs/$1.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$BUILD/fuzz_$entry" \
    -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$corpus" "$BUILD/fuzz-seeds/$entry" >"$log" 2>&1 || true
}

start=$(date +%s)
pids=()
for entry in "${ENTRIES[@]}"; do
  run_one "$entry" & pids+=($!)
  if [ ${#pids[@]} -ge "$JOBS" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
wait

crashed=0
printf '%-13s %8s %12s %9s %7s %8s\n' entry seconds executions exec/s corpus crashes
for entry in "${ENTRIES[@]}"; do
  log="$BUILD/fuzz-logs/$entry.log"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  [ -n "$secs" ] || secs=$SECONDS_EACH
  rate=$(( ${execs:-0} / (secs > 0 ? secs : 1) ))
  corpus=$(find "$BUILD/fuzz-corpus/$entry" -type f | wc -l)
  crashes=$(find "$BUILD/fuzz-artifacts/$entry" -type f | wc -l)
  printf '%-13s %8s %12s %9s %7s %8s\n' "$entry" "$secs" "${execs:-?}" "$rate" "$corpus" "$crashes"
  if [ "$crashes" -gt 0 ]; then
    crashed=1
    find "$BUILD/fuzz-artifacts/$entry" -type f | sed 's/^/    /'
    grep -m3 -E "ERROR: |runtime error|fuzz invariant broken|SUMMARY" "$log" | sed 's/^/    /' || true
  fi
done
echo "run.sh: $(( $(date +%s) - start )) s in all"
exit $crashed

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# One fuzz smoke run, as ctest's fuzz.ENTRY runs it: the harness over a scratch corpus (grown) and
# the seeds (read only), with a fixed seed and limits. libFuzzer's progress lines go to
# LOG_DIR/ENTRY.log only; on a failure this prints what matters (the sanitizer's or libFuzzer's
# report, without the progress lines) and the crashing input, kept in ARTIFACT_DIR, as hex, so a
# CI log that shows only part of the output still says what broke and how to replay it.
# Usage: smoke.sh HARNESS CORPUS_DIR SEED_DIR RUNS SECONDS ARTIFACT_DIR LOG_DIR
set -uo pipefail
harness=$1 corpus=$2 seeds=$3 runs=$4 seconds=$5 artifacts=$6 logs=$7
entry=$(basename "$harness"); entry=${entry#fuzz_}
mkdir -p "$corpus" "$artifacts" "$logs"
rm -f "$artifacts/$entry"-*  # only this run's inputs are reported
log=$logs/$entry.log
"$harness" -seed=1 -runs="$runs" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$artifacts/$entry-" "$corpus" "$seeds" >"$log" 2>&1
status=$?
grep -E '^(Done|stat::)' "$log"
[ "$status" -eq 0 ] && exit 0
echo "fuzz $entry failed (exit $status); the report, progress lines left out (all of it: $log):"
grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|INITED|RELOAD)|^[[:space:]]*NEW_FUNC|# Uses: ' "$log" | tail -n 80
for input in "$artifacts/$entry"-*; do
  [ -f "$input" ] || continue
  echo "input $input ($(wc -c <"$input") bytes; replay: $harness $input), first 2 KiB as hex:"
  head -c 2048 "$input" | od -An -tx1 | tr -s ' ' | head -n 140
done
exit "$status"

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The cell-by-cell bound on admissions before the first refusal (tools/bench/stream_bound.py):
# its model must accept every admission of both Nova runs where Nova put it and numaplace's own
# first refusal-free prefixes (else it is stricter than Nova and no bound), and the must-admit
# rule of the total bound must call no guest blocked that numaplace's fit takes, at the boundary of
# every threshold; prints the bound per stream and shape. Skips (77) without Debian's python3-scipy.
# Usage: stream_bound_test.sh NUMAPLACE NUMAPLACE_DEV STREAMS_JSONL  (numaplace-dev replays, numaplace ranks)
set -euo pipefail
numaplace=$1 numaplace_dev=$2 streams=$3
python=/usr/bin/python3
if ! "$python" -c 'import scipy.optimize' 2>/dev/null; then
  echo "skipped: $python cannot import scipy (apt-get install python3-scipy)"
  exit 77
fi
ours=$(mktemp)
trap 'rm -f "$ours"' EXIT
"$numaplace_dev" replay "$streams" --json >"$ours"
"$python" "$(dirname "$0")/../../tools/bench/stream_bound.py" "$streams" --ours "$ours" --goal 1.15 \
    --numaplace "$numaplace"

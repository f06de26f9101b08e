#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every file under tests/data is named by a `path:` pattern of tests/data/PROVENANCE (its origin and
# licence), and every pattern names at least one file.
# Usage: provenance_check.sh SOURCE_DIR
set -euo pipefail
data=$1/tests/data
mapfile -t patterns < <(sed -n 's/^path: *//p' "$data/PROVENANCE")
[ ${#patterns[@]} -gt 0 ] || { echo "no path: lines in $data/PROVENANCE"; exit 1; }
declare -A used
files=0 unnamed=0
while IFS= read -r f; do
  files=$((files + 1))
  named=0
  for p in "${patterns[@]}"; do
    # shellcheck disable=SC2053 # the pattern is a glob on purpose
    if [[ $f == $p ]]; then named=1; used[$p]=1; fi
  done
  if [ "$named" -eq 0 ]; then echo "tests/data/$f: not in PROVENANCE"; unnamed=$((unnamed + 1)); fi
done < <(cd "$data" && find . -type f | sed 's|^\./||' | sort)
for p in "${patterns[@]}"; do
  [ -n "${used[$p]:-}" ] || { echo "PROVENANCE names '$p', which is no file"; unnamed=$((unnamed + 1)); }
done
grep -q '^licence: ' "$data/PROVENANCE" || { echo "no licence: lines"; exit 1; }
[ "$unnamed" -eq 0 ] || exit 1
echo "ok: the $files files of tests/data are named in PROVENANCE (${#patterns[@]} patterns)"

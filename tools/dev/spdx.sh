#!/usr/bin/env bash
# The project's own source files carry `SPDX-License-Identifier: LGPL-2.1-or-later` (LICENSE) near
# their top. Idempotent: a file that has the line is left as it is, so it can be re-run at any time
# (after a merge, after adding files).
#   tools/dev/spdx.sh           add the line where it is missing (prints each file it changed)
#   tools/dev/spdx.sh --check   change nothing; list the files without it, exit 1 if there is one
# Which files: git's tracked files (or, outside a git work tree, every file but build trees) that
# are C, C++, Python, shell, CMake, the linker version script, pkg-config or TOML sources, or
# scripts starting with #!; not data (tests/data, examples, the fuzz seeds and regressions,
# tests/conformance vectors) nor debian/ (debian/copyright covers it) except debian/rules.
# Where: first line (C/C++: a comment of their kind), or the second after a #! line.
set -euo pipefail
cd "$(dirname "$0")/../.."
ID="SPDX-License-Identifier: LGPL-2.1-or-later"
mode=${1:-apply}
usage() { awk 'NR == 1 {next} /^#/ {if ($0 !~ /^# SPDX-License-Identifier: [^ ]+$/) {sub(/^# ?/, ""); print}; next} {exit}' "$0"; }
case "$mode" in apply|--check) ;; *) usage; exit 2 ;; esac

list_files() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files
  else
    find . -path ./.git -prune -o -path './build' -prune -o -path './build-*' -prune -o -path './obj-*' -prune \
      -o -path ./debian/tmp -prune -o -name __pycache__ -prune -o -type f -print | sed 's|^\./||' | sort
  fi
}

# The comment style for a file, or nothing when it is not a source file of the project.
style_of() {
  local f=$1
  case "$f" in
    tests/data/*|examples/*|tests/fuzz/regressions/*|tests/fuzz/seeds/*|tests/fuzz/open/*|tests/conformance/*) return 0 ;;
    debian/rules) echo hash; return 0 ;;
    debian/*) return 0 ;;
  esac
  case "$f" in
    *.cpp|*.hpp|*.cc) echo slashes ;;
    *.c|*.h|*.h.in|*.map) echo block ;;
    *.py|*.sh|*.cmake|*.cmake.in|*/CMakeLists.txt|CMakeLists.txt|*.pc.in|*.toml) echo hash ;;
    *) if [ "$(head -c 2 "$f" 2>/dev/null)" = "#!" ]; then echo hash; fi ;;
  esac
}

missing=0
while IFS= read -r f; do
  [ -f "$f" ] || continue
  style=$(style_of "$f")
  [ -n "$style" ] || continue
  if head -n 5 "$f" | grep -q "SPDX-License-Identifier:"; then continue; fi
  if [ "$mode" = --check ]; then
    echo "$f: no '$ID' in its first 5 lines"
    missing=$((missing + 1))
    continue
  fi
  case "$style" in
    slashes) line="// $ID" ;;
    block) line="/* $ID */" ;;
    hash) line="# $ID" ;;
  esac
  tmp="$f.spdx-tmp"
  if [ "$(head -c 2 "$f")" = "#!" ]; then
    { head -n 1 "$f"; printf '%s\n' "$line"; tail -n +2 "$f"; } >"$tmp"
  else
    { printf '%s\n' "$line"; cat "$f"; } >"$tmp"
  fi
  chmod --reference="$f" "$tmp"
  mv "$tmp" "$f"
  echo "$f"
done < <(list_files)

if [ "$mode" = --check ]; then
  [ "$missing" -eq 0 ] || { echo "$missing files without the SPDX line: run tools/dev/spdx.sh"; exit 1; }
  echo "ok: every project source file carries '$ID'"
fi

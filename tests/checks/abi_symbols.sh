#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# libnumaplace.so exports the C ABI and nothing else: its defined dynamic symbols are exactly the
# functions numaplace.h declares (NP_EXPORT ... np_NAME(...)), each under the version node NUMAPLACE_0.
# Usage: abi_symbols.sh LIBNUMAPLACE_SO NUMAPLACE_H
set -eu
lib=$1 header=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# nm -D prints "ADDRESS TYPE NAME@@VERSION"; the version node itself is an absolute symbol (A).
nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}' | sort >"$scratch/exported"
sed -n 's/^NP_EXPORT[^(]*[ *]\(np_[a-z0-9_]*\)(.*/\1@@NUMAPLACE_0/p' "$header" | sort >"$scratch/declared"
echo "$(wc -l <"$scratch/exported") symbols exported, $(wc -l <"$scratch/declared") functions declared in numaplace.h"
if ! diff -u "$scratch/declared" "$scratch/exported" >"$scratch/diff"; then
  echo "libnumaplace.so exports other symbols than numaplace.h's np_* functions (- declared only, + exported only):"
  head -n 60 "$scratch/diff"
  exit 1
fi
[ "$(wc -l <"$scratch/exported")" -gt 0 ] || { echo "nothing exported"; exit 1; }
echo "ok: exactly the np_* functions of numaplace.h, under NUMAPLACE_0"

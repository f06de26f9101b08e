#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The generated man pages and bash completion (tools/man/cli_docs.py) against the CLI they came from:
# a page numaplace.1 and one numaplace-COMMAND.1 for every subcommand `numaplace --help` lists, each
# rendering without a warning from man/groff and naming every option of its command's --help; the
# completion offers the subcommands, and each subcommand's options.
# Usage: docs_check.sh NUMAPLACE DOCS_DIR
set -euo pipefail
cli=$1 docs=$2
fail=0
bad() { echo "FAIL: $*"; fail=1; }
commands=$("$cli" --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1; next} on {exit}')
[ -n "$commands" ] || { echo "numaplace --help lists no subcommands"; exit 1; }
render() {  # page -> plain text; man's and groff's warnings (as lintian asks for them) to .warnings
  LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$1" >/dev/null 2>"$docs/.warnings"
  LC_ALL=C.UTF-8 MANWIDTH=80 MAN_KEEP_FORMATTING= man -l "$1" 2>/dev/null
}
pages=0
for page in numaplace $(printf 'numaplace-%s\n' $commands); do
  file=$docs/man1/$page.1
  [ -f "$file" ] || { bad "no man page $file"; continue; }
  pages=$((pages + 1))
  text=$(render "$file")
  [ ! -s "$docs/.warnings" ] || bad "$page.1: $(head -n 3 "$docs/.warnings")"
  grep -q "^NAME" <<<"$text" && grep -q "^SYNOPSIS" <<<"$text" || bad "$page.1 has no NAME or SYNOPSIS"
  sub=${page#numaplace}; sub=${sub#-}
  # shellcheck disable=SC2086 # no subcommand for the top page
  for option in $("$cli" $sub --help | awk '/^Options:/ {on = 1; next} on && /^  -/ {print $1; next} on && !/^ / {exit}' | tr ',' ' '); do
    grep -qF -- "$option" <<<"$text" || bad "$page.1 does not name $option"
  done
done
extra=$(cd "$docs/man1" && ls | sed 's/\.1$//' | grep -vxF -f <(echo numaplace; printf 'numaplace-%s\n' $commands) || true)
[ -z "$extra" ] || bad "man pages of no subcommand: $extra"
# shellcheck disable=SC1091
source "$docs/bash-completion/numaplace"
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _numaplace; echo "${COMPREPLY[*]}"; }
for c in $commands; do
  [[ " $(complete_words numaplace "${c:0:3}") " == *" $c "* ]] || bad "completion of '${c:0:3}' does not offer $c"
  first=$("$cli" "$c" --help | awk '/^Options:/ {on = 1; next} on && /^  -/ {print $1; next}' | tr ',' '\n' | grep -- '^--' | grep -v -- '--help' | head -n 1)
  [ -z "$first" ] || [[ " $(complete_words numaplace "$c" "${first:0:5}") " == *" $first "* ]] ||
    bad "completion of 'numaplace $c ${first:0:5}' does not offer $first"
done
[ "$(complete_words numaplace place --capab)" = "--capabilities" ] || bad "completion of 'numaplace place --capab' is '$(complete_words numaplace place --capab)'"
[ $fail -eq 0 ] && echo "ok: $pages man pages (numaplace and $(wc -w <<<"$commands") subcommands) and the bash completion"
exit $fail

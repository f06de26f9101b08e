#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# project(VERSION) in CMakeLists.txt is the only place the version is written; everything that
# says a version must say that one: numaplace --version, np_version() of the shared library, the
# header's NUMAPLACE_VERSION_MAJOR/MINOR/PATCH/STRING (and the older NP_VERSION_MAJOR/MINOR),
# numaplace.pc, the Python package's __version__ (build tree), the pip package's metadata
# (python/setup.py) and the top entry of debian/changelog.
# Usage: version_check.sh SOURCE_DIR BUILD_DIR NUMAPLACE LIBNUMAPLACE_SO
# (NUMAPLACE_TEST_PYTHON_ENV: VAR=VALUE words for python3 alone, e.g. the sanitizer runtime preloaded)
set -eu
source=$1 build=$2 cli=$3 lib=$4
fail=0
want=$(sed -n 's/^project(numaplace VERSION \([0-9][0-9.]*\).*/\1/p' "$source/CMakeLists.txt")
[ -n "$want" ] || { echo "no project(numaplace VERSION ...) in $source/CMakeLists.txt"; exit 1; }
echo "project(VERSION): $want"
check() {  # what value
  if [ "$2" = "$want" ]; then echo "ok   $1: $2"; else echo "FAIL $1: '$2', not '$want'"; fail=1; fi
}
check "numaplace --version" "$("$cli" --version | sed -n 's/^numaplace //p')"
check "np_version()" "$(env ${NUMAPLACE_TEST_PYTHON_ENV:-} /usr/bin/python3 -c 'import ctypes, sys
lib = ctypes.CDLL(sys.argv[1]); lib.np_version.restype = ctypes.c_char_p
print(lib.np_version().decode())' "$lib")"
macros=$(printf '#include <numaplace.h>\nNUMAPLACE_VERSION_MAJOR.NUMAPLACE_VERSION_MINOR.NUMAPLACE_VERSION_PATCH NUMAPLACE_VERSION_STRING NP_VERSION_MAJOR.NP_VERSION_MINOR\n' |
         "${CC:-cc}" -E -P -I"$source/plugin/capi/include" -I"$build/include" - | tr -d ' ' | tail -n 1)
# "0.1.0""0.1.0"0.1 once the spaces are gone
check "NUMAPLACE_VERSION_MAJOR.MINOR.PATCH" "$(echo "$macros" | sed 's/".*//')"
check "NUMAPLACE_VERSION_STRING" "$(echo "$macros" | sed 's/^[^"]*"\([^"]*\)".*/\1/')"
check "NP_VERSION_MAJOR.MINOR (.PATCH added)" "$(echo "$macros" | sed 's/.*"//').$(echo "$want" | cut -d. -f3)"
check "numaplace.pc" "$(sed -n 's/^Version: //p' "$build/numaplace.pc")"
check "python numaplace.__version__" "$(PYTHONPATH="$build/python" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -c 'import numaplace; print(numaplace.__version__)')"
check "python/setup.py version()" "$(cd "$source/python" && PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -c 'import runpy, setuptools
setuptools.setup = lambda **kw: print(kw["version"])
runpy.run_path("setup.py")')"
check "debian/changelog" "$(sed -n '1s/^numaplace (\([^)-]*\).*/\1/p' "$source/debian/changelog")"
exit $fail

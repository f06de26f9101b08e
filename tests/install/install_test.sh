#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs the build into a private prefix inside the build directory, then compiles
# and links a C and a C++ program against the INSTALLED library through pkg-config
# (PKG_CONFIG_PATH pointing there) and runs them.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR CAPABILITIES.xml DOMAIN.xml
# CC, CXX (default cc, c++), NUMAPLACE_EXTRA_FLAGS and NUMAPLACE_EXTRA_LIBS (the sanitizer
# build's flags, and what its runtime needs at the end of the link line) apply.
set -eu
build=$1 source=$2 caps=$3 domain=$4
prefix=$build/install-test
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >"$build/install-test.log"
pc=$(find "$prefix" -name numaplace.pc)
test -n "$pc" || { echo "numaplace.pc was not installed"; exit 1; }
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH
echo "pkg-config: numaplace $(pkg-config --modversion numaplace): $(pkg-config --cflags --libs numaplace)"
libdir=$(pkg-config --variable=libdir numaplace)
test -e "$libdir/libnumaplace.so.0" || { echo "no libnumaplace.so.0 in $libdir"; exit 1; }
test -x "$prefix/bin/numaplace" || { echo "the numaplace binary was not installed"; exit 1; }
test -f "$(pkg-config --variable=includedir numaplace)/numaplace.h" || { echo "numaplace.h was not installed"; exit 1; }
extra=${NUMAPLACE_EXTRA_FLAGS:-}
extra_libs=${NUMAPLACE_EXTRA_LIBS:-}
# shellcheck disable=SC2086 # pkg-config's output and $extra are word lists
"${CC:-cc}" -std=c11 -Wall -Wextra -Werror $extra -o "$prefix/place-c" "$source/tests/install/place.c" \
   $(pkg-config --cflags --libs numaplace) -Wl,-rpath,"$libdir" $extra_libs
# shellcheck disable=SC2086
"${CXX:-c++}" -std=c++17 -Wall -Wextra -Werror $extra -o "$prefix/place-cxx" "$source/tests/install/place.cpp" \
   $(pkg-config --cflags --libs numaplace) -Wl,-rpath,"$libdir" $extra_libs
# The programs must run on the installed library, not the build tree's.
ldd "$prefix/place-c" | grep -q "$libdir/libnumaplace.so.0" || { echo "not linked to the installed library"; ldd "$prefix/place-c"; exit 1; }
"$prefix/place-c" "$caps" "$domain"
"$prefix/place-cxx" "$caps" "$domain"

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Where `cmake --install` puts things, as a system package would (cmake/Install.cmake):
# - --prefix /usr (into a DESTDIR): the hook in /etc/libvirt/hooks/qemu.d/numaplace (never
#   /usr/etc, never over an existing /etc/libvirt/hooks/qemu), the Python package in
#   /usr/lib/python3/dist-packages, man pages, bash completion, headers, numaplace.pc;
# - --prefix /opt/numaplace: sysconfdir /etc/opt/numaplace; --prefix /usr/local: /usr/local/etc and
#   Debian's /usr/local/lib/python3.X/dist-packages;
# - the Python package: in each of these DESTDIR installs, and in a real prefix, Debian's
#   /usr/bin/python3 imports it (PYTHONPATH=<root><prefix>/lib/python3/dist-packages, or
#   lib/python3.X for /usr/local) and it loads the library of its own tree by itself (no
#   NUMAPLACE_LIBRARY, no LD_LIBRARY_PATH), whose version it says; a copy of a prefix loads its
#   own library; the dist-packages directories of /usr and /usr/local are on that python3's
#   default sys.path; where the build made numaplace._cellwords, it imports from beside the package.
#   What a DESTDIR install cannot show: the recorded absolute path (_config.LIBRARY, checked as
#   text only) loading from the real /usr, and ldconfig's cache knowing the library;
# - a real prefix: the installed hook runs the installed numaplace.
# Usage: install_layout.sh BUILD_DIR   (NUMAPLACE_TEST_PYTHON_ENV: VAR=VALUE words for python3 alone)
set -euo pipefail
build=$(cd "$1" && pwd)
work=$(mktemp -d "$build/install-layout.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
has() { [ -e "$1" ] || bad "missing $1"; }
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
py=$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
# Set, the package loads that library by name (the Debian package: the soname), not its tree's.
by_name=$(sed -n 's/^NUMAPLACE_PYTHON_LIBRARY:STRING=//p' "$build/CMakeCache.txt")
loaded=
# Built (PythonCellWords.cmake), the C reader of Nova's cells goes beside the package and imports.
cellwords=$(compgen -G "$build/python/numaplace/_cellwords*.so" || true)
# imports ROOT PYTHON_DIR: Debian's python3 imports numaplace from ROOT/PYTHON_DIR, its version
# that of the library it loads, which is the one under ROOT (its path in $loaded).
imports() {
  local root=$1 dir=$1$2
  loaded=$(cd "$work" && env -u NUMAPLACE_LIBRARY -u LD_LIBRARY_PATH ${NUMAPLACE_TEST_PYTHON_ENV:-} PYTHONPATH="$dir" \
           PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -c 'import sys, numaplace
assert numaplace.__file__.startswith(sys.argv[1] + "/numaplace/"), numaplace.__file__
assert numaplace.library_version() == numaplace.__version__, (numaplace.library_version(), numaplace.__version__)
if sys.argv[2]:
    import numaplace._cellwords
    assert numaplace._cellwords.__file__.startswith(sys.argv[1] + "/numaplace/"), numaplace._cellwords.__file__
print(numaplace._lib._name)' "$dir" "$cellwords") || { bad "python3 did not import numaplace from $dir"; return 0; }
  case "$loaded" in
    "$root/"*) ;;
    *) [ -n "$by_name" ] || bad "numaplace from $dir loaded '$loaded', not the library under $root" ;;
  esac
}
/usr/bin/python3 -c 'import sys; sys.exit(not {"/usr/lib/python3/dist-packages", sys.argv[1]} <= set(sys.path))' \
  "/usr/local/lib/python$py/dist-packages" ||
  bad "/usr/bin/python3's sys.path lacks /usr/lib/python3/dist-packages or /usr/local/lib/python$py/dist-packages"

d=$work/usr-root
mkdir -p "$d/etc/libvirt/hooks"
echo "#!/bin/sh  operator's own hook" >"$d/etc/libvirt/hooks/qemu"
DESTDIR=$d cmake --install "$build" --prefix /usr >"$work/usr.log"
hook=$d/etc/libvirt/hooks/qemu.d/numaplace
[ -x "$hook" ] || bad "no executable hook at /etc/libvirt/hooks/qemu.d/numaplace"
[ "$(cat "$d/etc/libvirt/hooks/qemu")" = "#!/bin/sh  operator's own hook" ] || bad "the operator's /etc/libvirt/hooks/qemu was changed"
[ ! -e "$d/usr/etc" ] || bad "something went to /usr/etc: $(find "$d/usr/etc")"
grep -q '"/usr/bin/numaplace"' "$hook" || bad "the hook does not name the installed /usr/bin/numaplace first"
has "$d/usr/bin/numaplace"
has "$d/usr/$libdir/libnumaplace.so.0"
has "$d/usr/$libdir/libnumaplace.so"
has "$d/usr/$libdir/pkgconfig/numaplace.pc"
for h in numaplace.h numaplace.hpp numaplace_version.h; do has "$d/usr/include/$h"; done
has "$d/usr/share/man/man1/numaplace.1"
has "$d/usr/share/man/man1/numaplace-place.1"
has "$d/usr/share/bash-completion/completions/numaplace"
has "$d/usr/lib/python3/dist-packages/numaplace/__init__.py"
has "$d/usr/lib/python3/dist-packages/numaplace/nova.py"
grep -qx "LIBRARY = \"/usr/$libdir/libnumaplace.so.0\"" "$d/usr/lib/python3/dist-packages/numaplace/_config.py" ||
  [ -n "$(sed -n 's/^NUMAPLACE_PYTHON_LIBRARY:STRING=//p' "$build/CMakeCache.txt")" ] ||
  bad "_config.py does not name /usr/$libdir/libnumaplace.so.0: $(cat "$d/usr/lib/python3/dist-packages/numaplace/_config.py")"
imports "$d" /usr/lib/python3/dist-packages
usr_loaded=$loaded

d=$work/opt-root
DESTDIR=$d cmake --install "$build" --prefix /opt/numaplace >"$work/opt.log"
[ -x "$d/etc/opt/numaplace/libvirt/hooks/qemu.d/numaplace" ] || bad "--prefix /opt/numaplace: no hook in /etc/opt/numaplace/libvirt/hooks/qemu.d"
imports "$d" /opt/numaplace/lib/python3/dist-packages
d=$work/local-root
DESTDIR=$d cmake --install "$build" --prefix /usr/local >"$work/local.log"
[ -x "$d/usr/local/etc/libvirt/hooks/qemu.d/numaplace" ] || bad "--prefix /usr/local: no hook in /usr/local/etc/libvirt/hooks/qemu.d"
has "$d/usr/local/lib/python$py/dist-packages/numaplace/_config.py"
imports "$d" "/usr/local/lib/python$py/dist-packages"

p=$work/prefix
cmake --install "$build" --prefix "$p" >"$work/prefix.log"
has "$p/etc/libvirt/hooks/qemu.d/numaplace"
imports "$p" /lib/python3/dist-packages
prefix_loaded=$loaded
out=$(env -u NUMAPLACE_BIN "$p/etc/libvirt/hooks/qemu.d/numaplace" vm1 stopped end - </dev/null) || bad "the installed hook failed on 'stopped end'"
[ -z "$out" ] || bad "the installed hook printed '$out' on 'stopped end'"
grep -q "\"$p/bin/numaplace\"" "$p/etc/libvirt/hooks/qemu.d/numaplace" || bad "the hook under $p does not name $p/bin/numaplace"
# Copied elsewhere, the prefix's package loads the copy's library (tried first, at its path
# relative to the package), not the one still at the recorded absolute path.
cp -a "$p" "$p-copy"
imports "$p-copy" /lib/python3/dist-packages
[ $fail -eq 0 ] && echo "ok: /usr (hook in /etc/libvirt/hooks/qemu.d, operator's hook kept), /opt, /usr/local and a private prefix;" \
  "python3 imports each one's package, which loads its library (DESTDIR /usr: $usr_loaded; $p: $prefix_loaded; its copy: $loaded)"
exit $fail

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Where `cmake --install` puts things, as a system package would (cmake/Install.cmake):
# - --prefix /usr (into a DESTDIR): the hook in /etc/libvirt/hooks/qemu.d/numaplace (never
#   /usr/etc, never over an existing /etc/libvirt/hooks/qemu), the Python package in
#   /usr/lib/python3/dist-packages, man pages, bash completion, headers, numaplace.pc;
# - --prefix /opt/numaplace: sysconfdir /etc/opt/numaplace; --prefix /usr/local: /usr/local/etc and
#   Debian's /usr/local/lib/python3.X/dist-packages;
# - a real prefix: Debian's python3 imports the installed package from it, which loads the
#   installed library (not the build tree's) and says the library's version; the installed hook
#   runs the installed numaplace.
# Usage: install_layout.sh BUILD_DIR   (NUMAPLACE_TEST_PYTHON_ENV: VAR=VALUE words for python3 alone)
set -euo pipefail
build=$1
work=$(mktemp -d "$build/install-layout.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
has() { [ -e "$1" ] || bad "missing $1"; }
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
py=$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')

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
grep -qx "LIBRARY = \"/usr/$libdir/libnumaplace.so.0\"" "$d/usr/lib/python3/dist-packages/numaplace/_config.py" ||
  [ -n "$(sed -n 's/^NUMAPLACE_PYTHON_LIBRARY:STRING=//p' "$build/CMakeCache.txt")" ] ||
  bad "_config.py does not name /usr/$libdir/libnumaplace.so.0: $(cat "$d/usr/lib/python3/dist-packages/numaplace/_config.py")"

d=$work/opt-root
DESTDIR=$d cmake --install "$build" --prefix /opt/numaplace >"$work/opt.log"
[ -x "$d/etc/opt/numaplace/libvirt/hooks/qemu.d/numaplace" ] || bad "--prefix /opt/numaplace: no hook in /etc/opt/numaplace/libvirt/hooks/qemu.d"
d=$work/local-root
DESTDIR=$d cmake --install "$build" --prefix /usr/local >"$work/local.log"
[ -x "$d/usr/local/etc/libvirt/hooks/qemu.d/numaplace" ] || bad "--prefix /usr/local: no hook in /usr/local/etc/libvirt/hooks/qemu.d"
has "$d/usr/local/lib/python$py/dist-packages/numaplace/_config.py"

p=$work/prefix
cmake --install "$build" --prefix "$p" >"$work/prefix.log"
has "$p/etc/libvirt/hooks/qemu.d/numaplace"
loaded=$(cd "$work" && env -u NUMAPLACE_LIBRARY ${NUMAPLACE_TEST_PYTHON_ENV:-} PYTHONPATH="$p/lib/python3/dist-packages" PYTHONDONTWRITEBYTECODE=1 \
         /usr/bin/python3 -c 'import numaplace
assert numaplace.__file__.startswith(__import__("sys").argv[1]), numaplace.__file__
assert numaplace.library_version() == numaplace.__version__, (numaplace.library_version(), numaplace.__version__)
print(numaplace._lib._name)' "$p") || bad "the installed Python package did not load"
case "$loaded" in
  "$p/"*) ;;
  *) [ -n "$(sed -n 's/^NUMAPLACE_PYTHON_LIBRARY:STRING=//p' "$build/CMakeCache.txt")" ] || bad "the installed Python package loaded '$loaded', not the library under $p" ;;
esac
out=$(env -u NUMAPLACE_BIN "$p/etc/libvirt/hooks/qemu.d/numaplace" vm1 stopped end - </dev/null) || bad "the installed hook failed on 'stopped end'"
[ -z "$out" ] || bad "the installed hook printed '$out' on 'stopped end'"
grep -q "\"$p/bin/numaplace\"" "$p/etc/libvirt/hooks/qemu.d/numaplace" || bad "the hook under $p does not name $p/bin/numaplace"
[ $fail -eq 0 ] && echo "ok: /usr (hook in /etc/libvirt/hooks/qemu.d, operator's hook kept), /opt, /usr/local and a private prefix (python loads $loaded)"
exit $fail

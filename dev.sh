#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# numaplace developer entry point. Installs what is missing (Debian 12 packages),
# configures and builds into build/, then runs what you ask for:
#   ./dev.sh demo      place the bundled 8-vCPU guest on libvirt's test host, validate with libvirt
#   ./dev.sh test      run the whole test suite (unit, conformance, CLI, e2e) with ctest, then
#                      the same suite under ASan+UBSan with each fuzz harness run briefly (= asan),
#                      then the Debian packages (= package)
#   ./dev.sh asan      only the clang ASan+UBSan build (build-asan/): the suite without e2e, and
#                      each libFuzzer harness for NUMAPLACE_FUZZ_SMOKE_RUNS (default 10000) runs
#   ./dev.sh fuzz-smoke  the same build, only the fuzz harnesses (ctest label fuzz)
#   ./dev.sh package   build the .deb packages from the tree (build/package/), lintian them and, as
#                      root, install them, run the demo with the installed numaplace, purge them
#   ./dev.sh build     only install and build
# The tests read the tree's tests/data; NUMAPLACE_SHARED_DIR=DIR tests with another directory of
# the same layout (conformance/, corpus/, samples/) instead.
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(cmake g++ make pkg-config libxml2-dev libvirt-dev libvirt-clients libhwloc-dev libnuma-dev
          libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev python3-scipy
          xz-utils man-db python3-dev python3-setuptools python3-wheel python3-pip
          # Nova 26 and what its unit tests import (ctest label nova: tests/nova, docs/nova.md)
          python3-nova python3-oslotest python3-ddt python3-testscenarios python3-fixtures
          python3-testtools python3-stestr python3-wsgi-intercept
          # and what its functional NUMA server tests need besides: placement in process, and
          # Debian's api-paste.ini (nova-common: /usr/share/nova-common/api-paste.ini)
          python3-placement nova-common)
# What ./dev.sh package needs besides: the Debian package tools.
PACKAGE_TOOLS=(build-essential debhelper dh-python dpkg-dev lintian)
BUILD_DIR=${BUILD_DIR:-build}

install_missing() {
  local missing=()
  for pkg in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "dev.sh: installing ${missing[*]}" >&2
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
}

build() {
  install_missing
  # -g1: line tables and functions (backtraces, breakpoints by line), not variables; a test file
  # compiles in 13.0 s against -g's 16.5 s (fit_api_test.cpp, g++ 12), and CI has 45 minutes.
  # NUMAPLACE_DEBUG_FLAGS=-g gives gdb everything.
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNUMAPLACE_SHARED_DIR="${NUMAPLACE_SHARED_DIR:-}" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 ${NUMAPLACE_DEBUG_FLAGS:--g1} -DNDEBUG" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 ${NUMAPLACE_DEBUG_FLAGS:--g1} -DNDEBUG" "$@" >/dev/null
  cmake --build "$BUILD_DIR" -j"$(nproc)"
}

demo() {
  build
  run_demo "$BUILD_DIR/numaplace" "$BUILD_DIR/demo-placed.xml"
}

run_demo() {  # NUMAPLACE OUT.xml
  local numaplace=$1 out=$2
  echo "== numaplace topology (libvirt test:///default)"
  "$numaplace" topology --connect test:///default
  echo "== numaplace place examples/guest-8vcpu-4g.xml (8 vCPUs, 4 GiB; cells 6+2 vCPUs, 3072+1024 MiB)"
  "$numaplace" place examples/guest-8vcpu-4g.xml --connect test:///default \
    --spec hw:numa_nodes=2 --spec hw:numa_cpus.0=0,1,2,3,4,5 --spec hw:numa_cpus.1=6,7 \
    --spec hw:numa_mem.0=3072 --spec hw:numa_mem.1=1024 -o "$out"
  cat "$out"
  echo "== virsh -c test:///default define --validate $out"
  virsh -c test:///default define --validate "$out"
}

# The whole suite, then the same suite under ASan+UBSan with the fuzz harnesses run briefly, then
# the Debian packages.
run_tests() {
  build
  ctest --test-dir "$BUILD_DIR" -j"$(nproc)" --output-on-failure
  hardened
  package
}

# The .deb packages built from the tree as it is (committed or not) in build/package/, checked with
# lintian (no error allowed), and, as root (or through sudo), installed with apt, checked where a
# system looks for them (numaplace --version, man numaplace-place, the hook in
# /etc/libvirt/hooks/qemu.d, python3's import, pkg-config), the demo run with the installed
# /usr/bin/numaplace, and purged again. When one of them was installed before, the packages are not
# installed (nor purged) here.
package() {
  PACKAGES+=("${PACKAGE_TOOLS[@]}")
  install_missing
  local work=$BUILD_DIR/package start=$SECONDS
  # A test that broke /dev/null (a regular file in its place) would write into the packages.
  [ -c /dev/null ] || { echo "dev.sh: /dev/null is not a character device: restore it (mknod -m 666 /dev/null c 1 3)" >&2; return 1; }
  rm -rf "$work"
  mkdir -p "$work/src"
  tar -C . --exclude=./.git --exclude=./build --exclude='./build-*' --exclude="./$BUILD_DIR" --exclude='./obj-*' \
    --exclude=./debian/tmp --exclude='*/__pycache__' -cf - . | tar -C "$work/src" -xf -
  echo "== dpkg-buildpackage -b -us -uc (log: $work/build.log)"
  if ! (cd "$work/src" && dpkg-buildpackage -b -us -uc -j"$(nproc)") >"$work/build.log" 2>&1; then
    tail -n 60 "$work/build.log"
    echo "dev.sh: dpkg-buildpackage failed (log: $work/build.log)" >&2
    return 1
  fi
  ls "$work"/*.deb
  echo "== lintian --fail-on error"
  lintian --fail-on error "$work"/*.changes
  local names=(libnumaplace0 libnumaplace-dev numaplace python3-numaplace) name
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  if [ "$(id -u)" -ne 0 ] && ! sudo -n true 2>/dev/null; then
    echo "dev.sh: not root and no sudo: the packages are built, not installed and tried"
    return 0
  fi
  for name in "${names[@]}"; do
    if dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q "ok installed"; then
      echo "dev.sh: $name was installed before: the packages are built, not installed and tried"
      return 0
    fi
  done
  local debs=()
  for name in "${names[@]}"; do debs+=("$(cd "$work" && pwd)/$(cd "$work" && ls "${name}"_*.deb)"); done
  echo "== apt-get install ${debs[*]##*/}"
  trap purge_packages EXIT
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    --no-install-recommends "${debs[@]}" >"$work/install.log" 2>&1 || { cat "$work/install.log"; return 1; }
  local want
  want=$(sed -n 's/^project(numaplace VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
  [ "$(/usr/bin/numaplace --version)" = "numaplace $want" ] ||
    { echo "dev.sh: /usr/bin/numaplace --version says '$(/usr/bin/numaplace --version)'"; return 1; }
  echo "/usr/bin/numaplace --version: numaplace $want"
  echo "man numaplace-place: $(man -w numaplace-place)"
  MANWIDTH=80 man numaplace-place 2>/dev/null | sed -n '3,4p'
  [ -x /etc/libvirt/hooks/qemu.d/numaplace ] || { echo "dev.sh: no hook /etc/libvirt/hooks/qemu.d/numaplace"; return 1; }
  if dpkg -L "${names[@]}" | grep -q '^/usr/etc'; then echo "dev.sh: a package put files under /usr/etc"; return 1; fi
  echo "hook: $(dpkg -S /etc/libvirt/hooks/qemu.d/numaplace)"
  (cd / && /usr/bin/python3 -c 'import numaplace
assert numaplace.__version__ == numaplace.library_version()
print("python3: numaplace", numaplace.__version__, "from", numaplace.__file__)')
  echo "pkg-config: numaplace $(pkg-config --modversion numaplace): $(pkg-config --cflags --libs numaplace)"
  run_demo /usr/bin/numaplace "$work/demo-placed.xml"
  purge_packages
  echo "dev.sh: packages built, lintian without errors, installed, tried and purged ($((SECONDS - start)) s)"
}

purge_packages() {
  trap - EXIT
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 purge -y -qq \
    libnumaplace0 libnumaplace-dev numaplace python3-numaplace >/dev/null 2>&1 || true
}

# One clang build (build-asan/) with AddressSanitizer and UndefinedBehaviorSanitizer over the library,
# the CLI and every test, plus the libFuzzer harnesses. Runs the suite there (e2e excluded: it runs
# real QEMU guests and is covered by the normal build; the peak-RSS test is not built there) and
# fuzzes each harness for NUMAPLACE_FUZZ_SMOKE_RUNS executions (default 10000, from a fixed seed:
# the same inputs every run) as ctests labelled fuzz.
hardened() {
  PACKAGES+=(clang)
  install_missing
  # -O1, as the sanitizers' own documentation builds, and line tables only: they are all a report
  # reads (file:line of each frame). Each saves a test file about a fifth of its compile time
  # (fit_api_test.cpp, clang 14: line tables 19.3 s against -g's 23.9 s; -O1 12.9 s against -O2's 16.5 s).
  local flags="-O1 -gline-tables-only -DNDEBUG"
  CC=clang CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNUMAPLACE_SANITIZE=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" \
    -DNUMAPLACE_FUZZ=ON -DNUMAPLACE_BENCHMARKS=OFF -DNUMAPLACE_SHARED_DIR="${NUMAPLACE_SHARED_DIR:-}" \
    -DNUMAPLACE_FUZZ_SMOKE_RUNS="${NUMAPLACE_FUZZ_SMOKE_RUNS:-10000}" "$@" >/dev/null
  cmake --build build-asan -j"$(nproc)"
  # intercept_tls_get_addr=0: clang 14's runtime can take a dynamic TLS block of a dlopen()ed library
  # (libvirt's glib) for a glibc 2.19 one when its address happens to fall on that header's offset,
  # and LeakSanitizer's tracer then dies scanning a bogus range (google/sanitizers#1322); without the
  # interception those blocks are still found as heap blocks the thread's DTV points to.
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0 \
    ctest --test-dir build-asan -j"$(nproc)" -LE "e2e|quality" --output-on-failure "${CTEST_ARGS[@]}"
}

CTEST_ARGS=()
case "${1:-}" in
  demo) demo ;;
  test) run_tests ;;
  asan) hardened ;;
  fuzz-smoke) CTEST_ARGS=(-L fuzz); hardened ;;
  package) package ;;
  build) build ;;
  *) awk 'NR == 1 {next} /^#/ {if ($0 !~ /^# SPDX-License-Identifier: [^ ]+$/) {sub(/^# ?/, ""); print}; next} {exit}' "$0"; exit 2 ;;
esac

#!/usr/bin/env bash
# numaplace developer entry point. Installs what is missing (Debian 12 packages),
# configures and builds into build/, then runs what you ask for:
#   ./dev.sh demo      place the bundled 8-vCPU guest on libvirt's test host, validate with libvirt
#   ./dev.sh test      run the whole test suite (unit, conformance, CLI, e2e) with ctest, then
#                      the same suite under ASan+UBSan with each fuzz harness run briefly (= asan)
#   ./dev.sh asan      only the clang ASan+UBSan build (build-asan/): the suite without e2e, and
#                      each libFuzzer harness for NUMAPLACE_FUZZ_SMOKE_RUNS (default 10000) runs
#   ./dev.sh fuzz-smoke  the same build, only the fuzz harnesses (ctest label fuzz)
#   ./dev.sh build     only install and build
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(cmake g++ make pkg-config libxml2-dev libvirt-dev libvirt-clients libhwloc-dev libnuma-dev
          libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev python3-scipy)
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
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  cmake --build "$BUILD_DIR" -j"$(nproc)"
}

demo() {
  build
  local out="$BUILD_DIR/demo-placed.xml"
  echo "== numaplace topology (libvirt test:///default)"
  "$BUILD_DIR/numaplace" topology
  echo "== numaplace place examples/guest-8vcpu-4g.xml (8 vCPUs, 4 GiB; cells 6+2 vCPUs, 3072+1024 MiB)"
  "$BUILD_DIR/numaplace" place examples/guest-8vcpu-4g.xml \
    --spec hw:numa_nodes=2 --spec hw:numa_cpus.0=0,1,2,3,4,5 --spec hw:numa_cpus.1=6,7 \
    --spec hw:numa_mem.0=3072 --spec hw:numa_mem.1=1024 -o "$out"
  cat "$out"
  echo "== virsh -c test:///default define --validate $out"
  virsh -c test:///default define --validate "$out"
}

shared_dir_or_exit() {
  local shared=${NUMAPLACE_SHARED_DIR:-../shared}
  if [ ! -f "$shared/conformance/SCHEMA.md" ]; then
    echo "dev.sh: the tests read the reference vectors, corpus and samples of shared/, expected at $shared" >&2
    echo "dev.sh: clone numaplace beside shared/, or run NUMAPLACE_SHARED_DIR=/path/to/shared ./dev.sh test" >&2
    exit 2
  fi
  (cd "$shared" && pwd)
}

# The whole suite, then the same suite under ASan+UBSan with the fuzz harnesses run briefly.
run_tests() {
  local shared
  shared=$(shared_dir_or_exit)
  build -DNUMAPLACE_SHARED_DIR="$shared"
  ctest --test-dir "$BUILD_DIR" -j"$(nproc)" --output-on-failure
  hardened -DNUMAPLACE_SHARED_DIR="$shared"
}

# One clang build (build-asan/) with AddressSanitizer and UndefinedBehaviorSanitizer over the library,
# the CLI and every test, plus the libFuzzer harnesses. Runs the suite there (e2e excluded: it runs
# real QEMU guests and is covered by the normal build; the peak-RSS test is not built there) and
# fuzzes each harness for NUMAPLACE_FUZZ_SMOKE_RUNS executions (default 10000, from a fixed seed:
# the same inputs every run) as ctests labelled fuzz.
hardened() {
  PACKAGES+=(clang)
  install_missing
  CC=clang CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNUMAPLACE_SANITIZE=ON \
    -DNUMAPLACE_FUZZ=ON -DNUMAPLACE_BENCHMARKS=OFF \
    -DNUMAPLACE_FUZZ_SMOKE_RUNS="${NUMAPLACE_FUZZ_SMOKE_RUNS:-10000}" "$@" >/dev/null
  cmake --build build-asan -j"$(nproc)"
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
    ctest --test-dir build-asan -j"$(nproc)" -LE "e2e|quality" --output-on-failure "${CTEST_ARGS[@]}"
}

CTEST_ARGS=()
case "${1:-}" in
  demo) demo ;;
  test) run_tests ;;
  asan) shared=$(shared_dir_or_exit); hardened -DNUMAPLACE_SHARED_DIR="$shared" ;;
  fuzz-smoke) shared=$(shared_dir_or_exit); CTEST_ARGS=(-L fuzz); hardened -DNUMAPLACE_SHARED_DIR="$shared" ;;
  build) build ;;
  *) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac

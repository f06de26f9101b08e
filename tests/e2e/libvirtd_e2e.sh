#!/usr/bin/env bash
# End to end on a real libvirtd running real (TCG) QEMU guests:
#   numaplace define + numaplace start a guest, then check the pinning three ways
#   (virsh vcpupin, virsh numatune, /proc of the QEMU process and its vCPU threads);
#   then define and start two dedicated guests at once and check their pins do not overlap.
# Usage: libvirtd_e2e.sh NUMAPLACE SAMPLE_DOMAIN_XML
# Starts virtlogd and libvirtd by hand (no systemd) unless a libvirtd already answers, and
# tears down what it started by pid. Exit 77 (skipped) when it cannot install what it needs.
set -euo pipefail
NUMAPLACE=$(readlink -f "$1")
SAMPLE=$(readlink -f "$2")
URI=qemu:///system
WORK=$(mktemp -d /tmp/numaplace-e2e.XXXXXX)
# One e2e run at a time on a machine: they share libvirtd and the guest names.
exec 9>/tmp/numaplace-e2e.lock
flock -w 900 9 || { echo "e2e: another e2e run holds /tmp/numaplace-e2e.lock" >&2; exit 1; }
GUESTS=(np-e2e-a np-e2e-b np-e2e-c)
STARTED_DAEMONS=()

say() { printf 'e2e: %s\n' "$*"; }
fail() { printf 'e2e: FAIL: %s\n' "$*" >&2; exit 1; }

need_packages() {
  local missing=()
  for pkg in libvirt-daemon-system qemu-system-x86; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then say "skipped: ${missing[*]} missing and not root"; exit 77; fi
  say "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
    "${missing[@]}" >"$WORK/apt.log" 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >"$WORK/apt.log" 2>&1; } \
    || { cat "$WORK/apt.log"; say "skipped: cannot install ${missing[*]}"; exit 77; }
}

cleanup() {
  for g in "${GUESTS[@]}"; do
    virsh -c "$URI" destroy "$g" >/dev/null 2>&1 || true
    virsh -c "$URI" undefine "$g" >/dev/null 2>&1 || true
  done
  for pidfile in "${STARTED_DAEMONS[@]}"; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

need_packages
if ! virsh -c "$URI" version >/dev/null 2>&1; then
  [ "$(id -u)" -eq 0 ] || { say "skipped: no libvirtd answers at $URI and not root to start one"; exit 77; }
  virtlogd -d -p "$WORK/virtlogd.pid"; STARTED_DAEMONS+=("$WORK/virtlogd.pid")
  libvirtd -d -p "$WORK/libvirtd.pid"; STARTED_DAEMONS+=("$WORK/libvirtd.pid")
  for _ in $(seq 1 60); do virsh -c "$URI" version >/dev/null 2>&1 && break; sleep 0.5; done
  virsh -c "$URI" version >/dev/null || fail "libvirtd did not come up"
fi
for g in "${GUESTS[@]}"; do virsh -c "$URI" destroy "$g" >/dev/null 2>&1 || true; virsh -c "$URI" undefine "$g" >/dev/null 2>&1 || true; done

# A guest from the recipe-tested sample, renamed, with 1 vCPU so that two dedicated ones fit 2 host CPUs.
make_guest() {  # name vcpus
  sed -e "s|<name>[^<]*</name>|<name>$1</name>|" -e "/<uuid>/d" \
      -e "s|<vcpu placement='static'>[0-9]*</vcpu>|<vcpu placement='static'>$2</vcpu>|" \
      -e "/<cputune>/,/<\/cputune>/d" -e "/<numatune>/,/<\/numatune>/d" -e "/<numa>/,/<\/numa>/d" \
      -e "s|<topology [^/]*/>|<topology sockets='1' dies='1' cores='$2' threads='1'/>|" "$SAMPLE" >"$WORK/$1.xml"
}

qemu_pid() { cat "/run/libvirt/qemu/$1.pid"; }

# vCPU threads of a QEMU process: "CPU n/TCG" (or /KVM) in comm.
vcpu_thread_cpus() {  # pid vcpu
  local pid=$1 vcpu=$2 task
  for task in /proc/"$pid"/task/*; do
    if grep -qE "^CPU $vcpu/(TCG|KVM)$" "$task/comm" 2>/dev/null; then
      awk '/^Cpus_allowed_list/ {print $2}' "$task/status"; return 0
    fi
  done
  return 1
}

# --- 1. one guest, define + start, verified three ways --------------------------------------------
make_guest np-e2e-a 2
"$NUMAPLACE" define "$WORK/np-e2e-a.xml" --connect "$URI" --spec hw:numa_nodes=1 --json >"$WORK/a.json"
"$NUMAPLACE" start np-e2e-a --connect "$URI" --json >"$WORK/a-start.json"
expected=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['placement']['cells'][0]['host_cpus'])" "$WORK/a.json")
host_cell=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['placement']['cells'][0]['host_cell'])" "$WORK/a.json")
say "np-e2e-a placed on host cell $host_cell, vCPUs on $expected"

for v in 0 1; do
  got=$(virsh -c "$URI" vcpupin np-e2e-a --vcpu "$v" | awk -v v="$v" '$1 == v":" || $1 == v {print $NF}')
  [ "$got" = "$expected" ] || fail "virsh vcpupin: vCPU $v on '$got', expected '$expected'"
done
numatune=$(virsh -c "$URI" numatune np-e2e-a)
grep -Eq "numa_mode *: strict" <<<"$numatune" || fail "virsh numatune: mode is not strict: $numatune"
grep -Eq "numa_nodeset *: $host_cell$" <<<"$numatune" || fail "virsh numatune: nodeset is not $host_cell: $numatune"
pid=$(qemu_pid np-e2e-a)
mems=$(awk '/^Mems_allowed_list/ {print $2}' "/proc/$pid/status")
[ "$mems" = "$host_cell" ] || fail "/proc/$pid: Mems_allowed_list is '$mems', expected '$host_cell'"
for v in 0 1; do
  got=$(vcpu_thread_cpus "$pid" "$v") || fail "no vCPU thread $v in /proc/$pid/task"
  [ "$got" = "$expected" ] || fail "/proc: vCPU thread $v allowed on '$got', expected '$expected'"
done
say "np-e2e-a: vcpupin, numatune and /proc agree ($expected, node $host_cell)"
virsh -c "$URI" destroy np-e2e-a >/dev/null

# --- 2. two dedicated guests defined and started at once ------------------------------------------
# The second waits on the host lock while the first defines and starts; a libvirtd that probes
# QEMU on every call (40 s for one validated define on CI machines without KVM) needs longer than
# the default 60 s wait.
export NUMAPLACE_LOCK_TIMEOUT=600
make_guest np-e2e-b 1
make_guest np-e2e-c 1
for g in np-e2e-b np-e2e-c; do
  ( "$NUMAPLACE" define "$WORK/$g.xml" --connect "$URI" --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated \
      --json >"$WORK/$g.json" 2>"$WORK/$g.err" && "$NUMAPLACE" start "$g" --connect "$URI" >"$WORK/$g.start" \
      2>>"$WORK/$g.err" ) &
done
wait
pins=()
for g in np-e2e-b np-e2e-c; do
  state=$(virsh -c "$URI" domstate "$g" 2>&1 || true)
  [ "$state" = "running" ] || fail "$g is not running ($state); numaplace said: $(cat "$WORK/$g.json" "$WORK/$g.err")"
  pin=$(vcpu_thread_cpus "$(qemu_pid "$g")" 0) || fail "no vCPU thread in $g"
  virsh_pin=$(virsh -c "$URI" vcpupin "$g" --vcpu 0 | awk '$1 == "0:" || $1 == "0" {print $NF}')
  [ "$pin" = "$virsh_pin" ] || fail "$g: /proc says '$pin', virsh vcpupin says '$virsh_pin'"
  case "$pin" in *[-,]*) fail "$g: a dedicated vCPU allowed on several pCPUs ('$pin')" ;; esac
  pins+=("$pin")
  say "$g: dedicated vCPU 0 on pCPU $pin"
done
[ "${pins[0]}" != "${pins[1]}" ] || fail "both dedicated guests hold pCPU ${pins[0]}"
say "dedicated pins do not overlap: ${pins[*]}"
echo "e2e: 2 passed, 0 failed"

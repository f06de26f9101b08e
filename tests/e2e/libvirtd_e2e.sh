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
TAG=e2e
WORK=$(mktemp -d /tmp/numaplace-e2e.XXXXXX)
GUESTS=(np-e2e-a np-e2e-b np-e2e-c)
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
take_e2e_lock
trap finish_e2e EXIT

need_packages
start_libvirtd_unless_running
remove_guests

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

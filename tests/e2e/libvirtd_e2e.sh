#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# End to end on a real libvirtd running real (TCG) QEMU guests:
#   numaplace define + numaplace start a guest, then check the pinning three ways
#   (virsh vcpupin, virsh numatune, /proc of the QEMU process and its vCPU threads);
#   then define and start two dedicated guests at once and check their pins do not overlap;
#   then start a dedicated guest next to a running floating guest on the same cell and check
#   (in /proc and in the floating guest's persistent definition) that the floating guest's
#   threads left the dedicated guest's pCPU.
# Usage: libvirtd_e2e.sh NUMAPLACE SAMPLE_DOMAIN_XML
# Starts virtlogd and libvirtd by hand (no systemd) unless a libvirtd already answers, and
# tears down what it started by pid. Exit 77 (skipped) when it cannot install what it needs.
set -euo pipefail
NUMAPLACE=$(readlink -f "$1")
SAMPLE=$(readlink -f "$2")
TAG=e2e
WORK=$(mktemp -d /tmp/numaplace-e2e.XXXXXX)
GUESTS=(np-e2e-a np-e2e-b np-e2e-c np-e2e-f np-e2e-d)
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
# Gone, not only stopped: a defined guest floating over the host's pCPUs would have to be narrowed by
# the dedicated guests below, and on a host of two pCPUs the second one would leave it none.
virsh -c "$URI" destroy np-e2e-a >/dev/null
virsh -c "$URI" undefine np-e2e-a >/dev/null

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
for g in np-e2e-b np-e2e-c; do
  virsh -c "$URI" destroy "$g" >/dev/null
  virsh -c "$URI" undefine "$g" >/dev/null
done

# --- 3. a dedicated guest next to a running floating guest ----------------------------------------
# The floating guest (no NUMA keys) is confined to a cell and floats over its pCPUs; the dedicated
# guest defined next takes one of them, and numaplace moves the floating guest's threads off it,
# live and in its persistent definition, before the dedicated guest starts.
make_guest np-e2e-f 1
"$NUMAPLACE" define "$WORK/np-e2e-f.xml" --connect "$URI" --json >"$WORK/f.json"
"$NUMAPLACE" start np-e2e-f --connect "$URI" >/dev/null
f_pid=$(qemu_pid np-e2e-f)
before=$(vcpu_thread_cpus "$f_pid" 0) || fail "no vCPU thread in np-e2e-f"
say "np-e2e-f floats on $before"
make_guest np-e2e-d 1
"$NUMAPLACE" define "$WORK/np-e2e-d.xml" --connect "$URI" --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated \
  --json >"$WORK/d.json" 2>"$WORK/d.err" || fail "np-e2e-d was not defined: $(cat "$WORK/d.err")"
"$NUMAPLACE" start np-e2e-d --connect "$URI" >/dev/null 2>>"$WORK/d.err" || fail "np-e2e-d did not start: $(cat "$WORK/d.err")"
d_pin=$(vcpu_thread_cpus "$(qemu_pid np-e2e-d)" 0) || fail "no vCPU thread in np-e2e-d"
case "$d_pin" in *[-,]*) fail "np-e2e-d's dedicated vCPU may run on several pCPUs ('$d_pin')" ;; esac
narrowed=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['narrowings']))" "$WORK/d.json")
[ "$narrowed" -gt 0 ] || fail "numaplace define named no thread to move off pCPU $d_pin: $(cat "$WORK/d.json")"
after=$(vcpu_thread_cpus "$f_pid" 0) || fail "no vCPU thread in np-e2e-f"
python3 - "$after" "$d_pin" <<'PY' || fail "np-e2e-f's vCPU thread may still run on np-e2e-d's pCPU $d_pin (allowed: $after)"
import sys
allowed = set()
for part in sys.argv[1].split(","):
    lo, _, hi = part.partition("-")
    allowed.update(range(int(lo), int(hi or lo) + 1))
sys.exit(1 if int(sys.argv[2]) in allowed else 0)
PY
emulator=$(virsh -c "$URI" emulatorpin np-e2e-f --live | awk '/^ *\*/ {print $NF}')
case ",$emulator," in *",$d_pin,"*) fail "np-e2e-f's emulator threads may still run on pCPU $d_pin ($emulator)" ;; esac
virsh -c "$URI" dumpxml --inactive np-e2e-f >"$WORK/f-inactive.xml"
python3 - "$WORK/f-inactive.xml" "$d_pin" <<'PY' || fail "np-e2e-f's persistent definition still lets it run on pCPU $d_pin"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
def ids(text):
    out = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out
sets = [root.find("vcpu").get("cpuset")] + [e.get("cpuset") for e in root.iter() if e.tag in ("vcpupin", "emulatorpin")]
sys.exit(1 if any(s is None or int(sys.argv[2]) in ids(s) for s in sets) else 0)
PY
say "np-e2e-f left pCPU $d_pin to np-e2e-d: vCPU thread now on $after (was $before), emulator on $emulator"
echo "e2e: 3 passed, 0 failed"

#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# numaplace's tuning on a real libvirtd and QEMU (TCG), as far as this machine lets it run:
#   1. memory-only guest cell: a 1-vCPU guest of 2 guest cells, cell 1 memory-only
#      (hw:numa_cpus.1= empty, hw:numa_mem.1=32), placed on a 2-cell host read from a capabilities
#      file (common.sh's two_cell_caps, as in migrate_e2e.sh); numaplace writes <cell id='1'
#      memory=...> without cpus; libvirt defines and starts it, keeps that cell in the live XML, and
#      QEMU has 2 NUMA nodes, node 1 with no CPUs and 32 MiB (qemu-monitor-command 'info numa');
#   2. realtime: a 2-vCPU guest `numaplace define`d with hw:cpu_policy=dedicated
#      hw:cpu_realtime=yes hw:cpu_realtime_mask=^0 on this machine's libvirt; its definition keeps
#      <vcpusched vcpus='1' scheduler='fifo' priority='1'/>, <locked/>, <nosharepages/> and an
#      emulatorpin on vCPU 0's pCPU; started, vCPU 1's thread ('CPU 1/TCG', the thread 'info cpus'
#      names) runs SCHED_FIFO priority 1 (chrt -p), vCPU 0's does not, the emulator thread is
#      allowed on vCPU 0's pCPU only, and the live XML keeps <vcpusched>.
# What a machine may refuse, and what the test then does (each said on stdout as "NOT COVERED"):
#   - <locked/>: libvirt raises QEMU's RLIMIT_MEMLOCK to unlimited, which needs CAP_SYS_RESOURCE.
#     Without it (this container: hard limit 8192 KiB, CAP_SYS_RESOURCE outside the bounding set)
#     virsh start fails with "cannot limit locked memory of process N to 9007199254740991:
#     Operation not permitted". The test then shows that prlimit is refused the same way, checks
#     <locked/> only in the persistent definition, and starts the guest from that definition
#     minus the <locked/> line (diffed: nothing else differs). Locked guest memory at run time
#     (VmLck of QEMU) is then not covered.
#   - SCHED_FIFO: on cgroup v1 with CONFIG_RT_GROUP_SCHED, libvirt puts each vCPU thread in a cgroup
#     of its own under machine/ in the cpu controller; a new cgroup gets cpu.rt_runtime_us = 0, and
#     sched_setscheduler(SCHED_FIFO) of a thread in it is EPERM: virsh start fails with "Cannot set
#     scheduler parameters for pid N: Operation not permitted". The test then shows chrt refused in
#     a fresh cpu cgroup of its own and, when it started libvirtd itself, restarts it in a private
#     mount namespace whose /etc/libvirt/qemu.conf leaves out the cpu and cpuacct controllers
#     (cgroup_controllers), so QEMU's threads stay in libvirtd's cpu cgroup, which has an RT
#     budget; the FIFO checks then run there. That is the host configuration realtime guests need
#     on such a kernel, not numaplace's doing; when someone else's libvirtd runs, it is not
#     restarted and the run-time realtime checks are NOT COVERED.
# The memory-only case binds <numatune> to node 0 before define (this machine has one NUMA node;
# libvirt refuses a nodeset naming node 1: "NUMA node 1 is unavailable"), see migrate_e2e.sh.
# Usage: tuning_e2e.sh NUMAPLACE SAMPLE_DOMAIN_XML
# Starts virtlogd and libvirtd by hand unless a libvirtd answers; exit 77 when it cannot run.
# Everything it starts (daemons, guests, the probe cgroup) is stopped or removed when it ends.
set -euo pipefail
NUMAPLACE=$(readlink -f "$1")
SAMPLE=$(readlink -f "$2")
TAG=tuning
WORK=$(mktemp -d /tmp/numaplace-tuning.XXXXXX)
GUESTS=(np-tun-mo np-tun-rt)
PROBE_CGROUP=
PROBE_PID=
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
take_e2e_lock
cleanup() {  # the probe's sleeper and cgroup (part 2b), then guests, daemons, scratch
  if [ -n "$PROBE_PID" ]; then kill "$PROBE_PID" 2>/dev/null || true; wait "$PROBE_PID" 2>/dev/null || true; fi
  [ -z "$PROBE_CGROUP" ] || rmdir "$PROBE_CGROUP" 2>/dev/null || true
  finish_e2e
}
trap cleanup EXIT

need_packages
start_libvirtd_unless_running
remove_guests
export NUMAPLACE_LOCK_FILE=$WORK/host.lock      # this test's own host lock, not /run/numaplace's
NOT_COVERED=()
not_covered() { say "NOT COVERED: $*"; NOT_COVERED+=("$1"); }
started() {  # guest: virsh start, its output in $WORK/start.out
  virsh -c "$URI" start "$1" >"$WORK/start.out" 2>&1
}

# --- 1. memory-only guest cell --------------------------------------------------------------------
two_cell_caps 0 1 >"$WORK/caps.xml"
make_guest np-tun-mo 1
"$NUMAPLACE" place "$WORK/np-tun-mo.xml" --capabilities "$WORK/caps.xml" --spec hw:numa_nodes=2 \
  --spec hw:numa_cpus.0=0 --spec hw:numa_mem.0=96 --spec hw:numa_cpus.1= --spec hw:numa_mem.1=32 \
  >"$WORK/mo-placed.xml"
# The guest cells as a domain XML has them: "id:cpus:memory KiB", cpus '-' when absent.
guest_cells() {  # file
  python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
scale = {"KiB": 1, "k": 1, "KB": 1, "MiB": 1024, "M": 1024, "MB": 1024, "GiB": 1048576, "G": 1048576}
for cell in ET.parse(sys.argv[1]).getroot().findall("./cpu/numa/cell"):
    kib = int(cell.get("memory")) * scale[cell.get("unit", "KiB")]
    print(f"{cell.get('id')}:{cell.get('cpus', '-')}:{kib}", end=" ")
PY
}
cells=$(guest_cells "$WORK/mo-placed.xml")
[ "$cells" = "0:0:98304 1:-:32768 " ] || fail "numaplace wrote guest cells '$cells', expected '0:0:98304 1:-:32768 '"
sed "/<numatune>/,/<\/numatune>/ s/nodeset=[\"'][^\"']*[\"']/nodeset='0'/" "$WORK/mo-placed.xml" >"$WORK/mo-define.xml"
virsh -c "$URI" define "$WORK/mo-define.xml" >"$WORK/define.out" 2>&1 || fail "virsh define np-tun-mo: $(cat "$WORK/define.out")"
started np-tun-mo || fail "np-tun-mo (memory-only cell 1) did not start: $(cat "$WORK/start.out")"
virsh -c "$URI" dumpxml np-tun-mo >"$WORK/mo-live.xml"
cells=$(guest_cells "$WORK/mo-live.xml")
[ "$cells" = "0:0:98304 1:-:32768 " ] || fail "the running np-tun-mo has guest cells '$cells', expected '0:0:98304 1:-:32768 '"
grep -Eq "<cell id='1' memory='32768' unit='KiB'" "$WORK/mo-live.xml" \
  || fail "the live XML has no <cell id='1' memory='32768' unit='KiB'> without cpus: $(grep '<cell' "$WORK/mo-live.xml")"
virsh -c "$URI" qemu-monitor-command np-tun-mo --hmp 'info numa' | tr -d '\r' | sed '/^$/d' >"$WORK/info-numa"
grep -qx "2 nodes" "$WORK/info-numa" || fail "QEMU's info numa: $(cat "$WORK/info-numa")"
grep -Eqx "node 0 cpus: 0" "$WORK/info-numa" || fail "QEMU's node 0 does not have CPU 0 only: $(cat "$WORK/info-numa")"
grep -Eqx "node 1 cpus: *" "$WORK/info-numa" || fail "QEMU's node 1 has CPUs: $(cat "$WORK/info-numa")"
grep -Eqx "node 1 size: 32 MB" "$WORK/info-numa" || fail "QEMU's node 1 is not 32 MB: $(cat "$WORK/info-numa")"
say "np-tun-mo runs with guest cell 1 memory-only (32 MiB, no cpus in the live XML); QEMU: $(paste -sd';' "$WORK/info-numa")"
virsh -c "$URI" destroy np-tun-mo >/dev/null
virsh -c "$URI" undefine np-tun-mo >/dev/null

# --- 2. realtime: the definition -------------------------------------------------------------------
make_guest np-tun-rt 2
"$NUMAPLACE" define "$WORK/np-tun-rt.xml" --connect "$URI" --spec hw:cpu_policy=dedicated \
  --spec hw:cpu_realtime=yes --spec hw:cpu_realtime_mask=^0 --json >"$WORK/rt.json" 2>"$WORK/rt.err" \
  || fail "numaplace define np-tun-rt: $(cat "$WORK/rt.json" "$WORK/rt.err")"
read -r PIN0 PIN1 < <(python3 -c "
import json, sys
p = {}
for c in json.load(open(sys.argv[1]))['placement']['cells']: p.update(c['pinning'])
print(p['0'], p['1'])" "$WORK/rt.json")
[ "$PIN0" != "$PIN1" ] || fail "both dedicated vCPUs on pCPU $PIN0"
virsh -c "$URI" dumpxml --inactive np-tun-rt >"$WORK/rt-inactive.xml"
# The tuning numaplace wrote, as libvirt kept it: "problem" lines, none when all is there.
check_tuning() {  # file pin0 pin1 want_locked(1|0)
  python3 - "$@" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
pin0, pin1, want_locked = sys.argv[2], sys.argv[3], sys.argv[4] == "1"
tune = root.find("cputune")
bad = []
if tune is None:
    sys.exit("no <cputune>")
scheds = [(s.get("vcpus"), s.get("scheduler"), s.get("priority")) for s in tune.findall("vcpusched")]
if scheds != [("1", "fifo", "1")]:
    bad.append(f"<vcpusched> is {scheds}, expected vcpus='1' scheduler='fifo' priority='1'")
pins = {p.get("vcpu"): p.get("cpuset") for p in tune.findall("vcpupin")}
if pins != {"0": pin0, "1": pin1}:
    bad.append(f"vcpupins {pins}, expected 0:{pin0} 1:{pin1}")
emu = [e.get("cpuset") for e in tune.findall("emulatorpin")]
if emu != [pin0]:
    bad.append(f"emulatorpin {emu}, expected vCPU 0's pCPU {pin0}")
backing = root.find("memoryBacking")
kids = [] if backing is None else [k.tag for k in backing]
if "nosharepages" not in kids:
    bad.append(f"no <nosharepages/> in <memoryBacking> ({kids})")
if want_locked and "locked" not in kids:
    bad.append(f"no <locked/> in <memoryBacking> ({kids})")
print("; ".join(bad))
PY
}
problems=$(check_tuning "$WORK/rt-inactive.xml" "$PIN0" "$PIN1" 1)
[ -z "$problems" ] || fail "np-tun-rt's definition: $problems"
say "np-tun-rt defined: vCPU 0 on pCPU $PIN0, vCPU 1 on pCPU $PIN1, <vcpusched vcpus='1' scheduler='fifo' priority='1'/>, emulatorpin $PIN0, <locked/>, <nosharepages/>"

# --- 2b. started: what this machine refuses -------------------------------------------------------
# Each refusal below is met once, in whatever order the machine gives them; any other is a failure.
LOCKED_LIVE=1        # the running guest has <locked/>
without_locked() {   # <locked/> refused: shown why, then the definition minus that line
  say "virsh start np-tun-rt: $(grep -m1 -o 'cannot limit locked memory.*' "$WORK/start.out")"
  local why
  why=$(prlimit --pid $$ --memlock=unlimited:unlimited 2>&1 || true)
  say "why: hard RLIMIT_MEMLOCK here is $(ulimit -Hl) KiB; 'prlimit --pid $$ --memlock=unlimited:unlimited': ${why:-accepted}; CapBnd $(awk '/^CapBnd/ {print $2}' /proc/self/status) (CAP_SYS_RESOURCE is bit 24)"
  not_covered "<locked/> at run time (QEMU's locked memory); checked in the persistent definition only"
  virsh -c "$URI" dumpxml --inactive np-tun-rt >"$WORK/rt-locked.xml"
  sed '/<locked\/>/d' "$WORK/rt-locked.xml" >"$WORK/rt-unlocked.xml"
  diff "$WORK/rt-locked.xml" "$WORK/rt-unlocked.xml" >"$WORK/unlocked.diff" || true
  [ "$(grep -c '^[<>]' "$WORK/unlocked.diff")" = 1 ] && grep -q '^< *<locked/>$' "$WORK/unlocked.diff" \
    || fail "taking <locked/> out changed more: $(cat "$WORK/unlocked.diff")"
  virsh -c "$URI" define "$WORK/rt-unlocked.xml" >/dev/null
  LOCKED_LIVE=0
}
RESTARTED=0          # this test's libvirtd runs without the cpu cgroup controller
without_cpu_cgroup() {  # SCHED_FIFO refused: shown why, then libvirtd without the cpu controller
  say "virsh start np-tun-rt$([ "$LOCKED_LIVE" -eq 1 ] || echo " (without <locked/>)"): $(grep -m1 -o 'Cannot set scheduler parameters.*' "$WORK/start.out")"
  local cpu_root=/sys/fs/cgroup/cpu why old
  if [ -f "$cpu_root/cpu.rt_runtime_us" ]; then
    say "why: cgroup v1 cpu controller with RT group scheduling; $cpu_root/machine/cpu.rt_runtime_us = $(cat "$cpu_root/machine/cpu.rt_runtime_us" 2>/dev/null || echo absent), a new cgroup starts at 0"
    PROBE_CGROUP=$cpu_root/numaplace-tuning-probe.$$
    mkdir "$PROBE_CGROUP"
    sleep 60 & PROBE_PID=$!
    echo "$PROBE_PID" >"$PROBE_CGROUP/tasks"
    why=$(chrt -f -p 1 "$PROBE_PID" 2>&1) && fail "chrt -f -p 1 was allowed in a fresh cpu cgroup (rt_runtime_us $(cat "$PROBE_CGROUP/cpu.rt_runtime_us")), yet libvirt could not set FIFO"
    say "why: in a fresh cpu cgroup (cpu.rt_runtime_us = $(cat "$PROBE_CGROUP/cpu.rt_runtime_us")) 'chrt -f -p 1 PID': $why"
    kill "$PROBE_PID"; wait "$PROBE_PID" 2>/dev/null || true; PROBE_PID=
    rmdir "$PROBE_CGROUP"; PROBE_CGROUP=
  fi
  if [ "${#STARTED_DAEMONS[@]}" -eq 0 ] || [ ! -f "$WORK/libvirtd.pid" ]; then
    not_covered "SCHED_FIFO of vCPU 1, vCPU 0 not FIFO, the emulator's affinity, the live <vcpusched>: libvirtd is not this test's, it is not restarted without the cpu cgroup controller"
    printf '%s: %s\n' "$TAG" "passed what can run; not covered: ${#NOT_COVERED[@]} (see NOT COVERED above)"
    exit 0
  fi
  # This test's libvirtd again, in a private mount namespace whose qemu.conf leaves out the cpu
  # controller (cpuacct too, mounted with it on some hosts): the guests' threads stay in
  # libvirtd's cpu cgroup, the RT budget of which is the kernel's (sched_rt_runtime_us).
  old=$(cat "$WORK/libvirtd.pid")
  kill "$old"
  for _ in $(seq 1 60); do kill -0 "$old" 2>/dev/null || break; sleep 0.5; done
  ! kill -0 "$old" 2>/dev/null || fail "libvirtd $old did not stop"
  cp /etc/libvirt/qemu.conf "$WORK/qemu.conf"
  echo 'cgroup_controllers = [ "devices", "memory", "blkio", "cpuset" ]' >>"$WORK/qemu.conf"
  unshare -m --propagation private sh -c "mount --bind '$WORK/qemu.conf' /etc/libvirt/qemu.conf && exec libvirtd -d -p '$WORK/libvirtd-nocpu.pid'" 9>&- \
    || fail "libvirtd without the cpu controller did not start"
  STARTED_DAEMONS+=("$WORK/libvirtd-nocpu.pid")
  for _ in $(seq 1 60); do virsh -c "$URI" version >/dev/null 2>&1 && break; sleep 0.5; done
  virsh -c "$URI" version >/dev/null 2>&1 || fail "libvirtd without the cpu controller does not answer"
  say "libvirtd restarted with cgroup_controllers = [devices, memory, blkio, cpuset] (no cpu), in its own mount namespace"
  RESTARTED=1
}
while ! started np-tun-rt; do
  if [ "$LOCKED_LIVE" -eq 1 ] && grep -q "cannot limit locked memory" "$WORK/start.out"; then
    without_locked
  elif [ "$RESTARTED" -eq 0 ] && grep -q "Cannot set scheduler parameters" "$WORK/start.out"; then
    without_cpu_cgroup
  else
    fail "np-tun-rt did not start$([ "$LOCKED_LIVE" -eq 1 ] || echo " without <locked/>")$([ "$RESTARTED" -eq 0 ] || echo " under libvirtd without the cpu controller"): $(cat "$WORK/start.out")"
  fi
done

# --- 2c. the running guest ------------------------------------------------------------------------
pid=$(qemu_pid np-tun-rt)
vcpu_tid() {  # vcpu: the thread of /proc/PID/task named "CPU n/TCG" (or KVM)
  local task
  for task in /proc/"$pid"/task/*; do
    grep -qE "^CPU $1/(TCG|KVM)$" "$task/comm" 2>/dev/null && { basename "$task"; return 0; }
  done
  return 1
}
tid0=$(vcpu_tid 0) || fail "no thread 'CPU 0/TCG' in /proc/$pid/task"
tid1=$(vcpu_tid 1) || fail "no thread 'CPU 1/TCG' in /proc/$pid/task"
virsh -c "$URI" qemu-monitor-command np-tun-rt --hmp 'info cpus' | tr -d '\r' >"$WORK/info-cpus"
grep -Eq "CPU #0: thread_id=$tid0\$" "$WORK/info-cpus" && grep -Eq "CPU #1: thread_id=$tid1\$" "$WORK/info-cpus" \
  || fail "QEMU's info cpus does not name threads $tid0, $tid1: $(cat "$WORK/info-cpus")"
sched1=$(chrt -p "$tid1")
grep -q "policy: SCHED_FIFO" <<<"$sched1" && grep -q "priority: 1$" <<<"$sched1" \
  || fail "vCPU 1's thread $tid1 is not SCHED_FIFO priority 1: $sched1"
sched0=$(chrt -p "$tid0")
! grep -q "SCHED_FIFO\|SCHED_RR" <<<"$sched0" || fail "vCPU 0's thread $tid0 runs realtime: $sched0"
cpus_of() { awk '/^Cpus_allowed_list/ {print $2}' "/proc/$pid/task/$1/status"; }
[ "$(cpus_of "$tid0")" = "$PIN0" ] || fail "vCPU 0's thread allowed on '$(cpus_of "$tid0")', pinned to $PIN0"
[ "$(cpus_of "$tid1")" = "$PIN1" ] || fail "vCPU 1's thread allowed on '$(cpus_of "$tid1")', pinned to $PIN1"
[ "$(cpus_of "$pid")" = "$PIN0" ] || fail "the emulator thread $pid is allowed on '$(cpus_of "$pid")', not vCPU 0's pCPU $PIN0"
emulator=$(virsh -c "$URI" emulatorpin np-tun-rt --live | awk '/^ *\*/ {print $NF}')
[ "$emulator" = "$PIN0" ] || fail "virsh emulatorpin --live says '$emulator', not $PIN0"
virsh -c "$URI" dumpxml np-tun-rt >"$WORK/rt-live.xml"
problems=$(check_tuning "$WORK/rt-live.xml" "$PIN0" "$PIN1" "$LOCKED_LIVE")
[ -z "$problems" ] || fail "the running np-tun-rt's XML: $problems"
if [ "$LOCKED_LIVE" -eq 1 ]; then
  locked=$(awk '/^VmLck/ {print $2}' "/proc/$pid/status")
  [ "${locked:-0}" -ge 131072 ] || fail "QEMU $pid has ${locked:-0} KiB locked, the guest has 131072"
  say "QEMU $pid has $locked KiB locked"
fi
say "np-tun-rt runs: vCPU 1 (thread $tid1) $(sed -n 's/.*policy: //p' <<<"$sched1") priority 1 on pCPU $PIN1, vCPU 0 (thread $tid0) $(sed -n 's/.*policy: //p' <<<"$sched0") on pCPU $PIN0, emulator (thread $pid) on $PIN0; live XML keeps <vcpusched>$([ "$LOCKED_LIVE" -eq 1 ] && echo " and <locked/>")"
printf '%s: %s\n' "$TAG" "passed; not covered: ${#NOT_COVERED[@]}${NOT_COVERED:+ (see NOT COVERED above)}"

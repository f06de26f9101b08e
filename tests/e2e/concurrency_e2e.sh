#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Concurrency and crash safety on a real libvirtd (claims live in libvirt's domain XML and
# numaplace's <metadata> record, read and written under the host flock; see
# docs/DESIGN-NOTES.md "Claims live in libvirt").
#   1. 64 `numaplace define` of one-vCPU dedicated guests (hw:numa_nodes=1, 64 MiB) at once:
#      exactly as many accepted as the host has free pCPUs, no pCPU in two guests' vcpupin,
#      every refused one says NoFit; then 64 shared guests sized so that memory at the RAM
#      ratio runs out before the shared CPUs do: exactly as many accepted as fit, no cell beyond.
#   2. `numaplace define` killed with SIGKILL at random points over many runs, with other
#      defines racing it: afterwards no pCPU is held twice, every defined guest carries its
#      pins and record, and a define after the carnage still gets the lock (the kernel
#      released it with the dead process).
# Usage: concurrency_e2e.sh NUMAPLACE SAMPLE_DOMAIN_XML [KILL_RUNS]
# Daemon handling, guests and locking as the other e2e scripts (common.sh): one e2e run at a
# time; starts virtlogd/libvirtd by hand when none answers and stops what it started by pid.
# Exit 77 (skipped) when libvirtd cannot be had.
set -euo pipefail
NUMAPLACE=$(readlink -f "$1")
SAMPLE=$(readlink -f "$2")
KILL_RUNS=${3:-30}
TAG=concurrency
WORK=$(mktemp -d /tmp/numaplace-conc.XXXXXX)
PREFIX=np-conc-
GUESTS=()
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
take_e2e_lock
# Our own lock file, so that a stale lock of another test cannot interfere (and so that the
# test shows the lock is released on death, not merely absent).
export NUMAPLACE_LOCK_FILE="$WORK/host.lock"
# 64 defines queue on one lock, each reading every domain; on a loaded machine that is more
# than the default 60 s wait for the last in line.
export NUMAPLACE_LOCK_TIMEOUT=${NUMAPLACE_LOCK_TIMEOUT:-600}

# This test's guests are many: found by their name prefix (replaces common.sh's list).
our_guests() { virsh -c "$URI" list --all --name 2>/dev/null | grep "^$PREFIX" || true; }
remove_guests() {
  local g
  for g in $(our_guests); do
    virsh -c "$URI" destroy "$g" >/dev/null 2>&1 || true
    virsh -c "$URI" undefine "$g" >/dev/null 2>&1 || true
  done
}

cleanup() {
  jobs -p | xargs -r kill -9 2>/dev/null || true
  wait 2>/dev/null || true
  finish_e2e
}
trap cleanup EXIT

need_packages
start_libvirtd_unless_running
virsh -c "$URI" capabilities >/dev/null  # a libvirtd already running may still be probing QEMU
virsh -c "$URI" domcapabilities --virttype qemu >/dev/null 2>&1 || true
remove_guests

define() {  # name [policy]: numaplace define, stdout/stderr/exit code into $WORK/name.{out,err,rc}
  local rc=0
  "$NUMAPLACE" define "$WORK/$1.xml" --connect "$URI" --spec hw:numa_nodes=1 --spec "hw:cpu_policy=${2:-dedicated}" \
    >"$WORK/$1.out" 2>"$WORK/$1.err" || rc=$?
  echo "$rc" >"$WORK/$1.rc"
}

# Counts exit codes of the defines of guests $PREFIX$2$i, i = 1..$1: fails on anything but
# 0 (accepted) or 3 with a NoFit reason; sets accepted and refused.
count_outcomes() {  # n tag
  local i g rc
  accepted=0; refused=0
  for i in $(seq 1 "$1"); do
    g="${PREFIX}$2$i"; rc=$(cat "$WORK/$g.rc")
    case "$rc" in
      0) accepted=$((accepted + 1)) ;;
      3) grep -q "NoFit" "$WORK/$g.err" || fail "$g refused (exit 3) without a NoFit reason: $(cat "$WORK/$g.err")"
         refused=$((refused + 1)) ;;
      *) fail "$g: numaplace define exit $rc: $(cat "$WORK/$g.err")" ;;
    esac
  done
}

# pCPUs each of our defined guests is pinned to, one "guest cpu" line per vCPU pin.
pins_of_our_guests() {
  local g
  for g in $(our_guests); do
    virsh -c "$URI" dumpxml --inactive "$g" |
      sed -n "s|.*<vcpupin vcpu='[0-9]*' cpuset='\([^']*\)'/>.*|$g \1|p"
  done
}

# Free pCPUs of the host now (cells' CPUs minus those pinned by guests already there).
free_pcpus=$("$NUMAPLACE" topology --connect "$URI" --json | python3 -c '
import json, sys
def ids(cpus):  # topology --json writes CPU lists as arrays of ids
    return set(cpus)
cells = json.load(sys.stdin)["cells"]
print(sum(len(ids(c["cpus"]) - ids(c["usage"]["pinned_cpus"])) for c in cells))')
say "host has $free_pcpus free pCPUs"
[ "$free_pcpus" -gt 0 ] || { say "skipped: no free pCPU on this host"; exit 77; }

# --- 1. 64 defines at once ---------------------------------------------------------------------
N=64
for i in $(seq 1 $N); do make_guest "${PREFIX}$i" 1 64; done
start=$(date +%s.%N)
for i in $(seq 1 $N); do define "${PREFIX}$i" & done
wait
say "$N concurrent defines took $(python3 -c "print(round($(date +%s.%N) - $start, 1))") s"
count_outcomes $N ""
say "accepted $accepted, refused $refused (each with a NoFit reason)"
[ "$accepted" -eq "$free_pcpus" ] || fail "accepted $accepted guests, the host has $free_pcpus free pCPUs"
[ "$(our_guests | wc -l)" -eq "$accepted" ] || fail "libvirt holds $(our_guests | wc -l) guests, numaplace accepted $accepted"
pins_of_our_guests >"$WORK/pins-1"
[ "$(wc -l <"$WORK/pins-1")" -eq "$accepted" ] || fail "not every accepted guest has its vcpupin: $(cat "$WORK/pins-1")"
if grep -E ' .*[-,]' "$WORK/pins-1"; then fail "a dedicated vCPU is allowed on several pCPUs"; fi
dup=$(awk '{print $2}' "$WORK/pins-1" | sort | uniq -d)
[ -z "$dup" ] || fail "pCPU(s) $dup pinned by two guests: $(cat "$WORK/pins-1")"
say "no pCPU is shared: $(awk '{print $1"->"$2}' "$WORK/pins-1" | tr '\n' ' ')"
remove_guests

# --- 1b. 64 shared guests at once, sized so that memory (at the RAM ratio) runs out first ---------
memory_plan=$("$NUMAPLACE" topology --connect "$URI" --include-defined --json | python3 -c '
import json, sys
def count(cpus):  # topology --json writes CPU lists as arrays of ids
    return len(cpus)
host = json.load(sys.stdin)
ram, cpu = host["allocation_ratio"]["ram"], host["allocation_ratio"]["cpu"]
room = [c["memory_kib"] * ram - c["usage"]["memory_kib"] for c in host["cells"]]
vcpu_room = [int(cpu * count(c["cpus"]) - c["usage"]["shared_cpus"]) for c in host["cells"]]
# Half as many guests as the shared CPUs could float, so that memory is what runs out.
target = max(1, min(40, sum(vcpu_room) // 2))
size_mib = max(64, int(sum(room) / 1024 / target))
print(size_mib, sum(min(max(0, int(r // (size_mib * 1024))), v) for r, v in zip(room, vcpu_room)))')
read -r size_mib expected <<<"$memory_plan"
for i in $(seq 1 $N); do make_guest "${PREFIX}m$i" 1 "$size_mib"; done
for i in $(seq 1 $N); do define "${PREFIX}m$i" shared & done
wait
count_outcomes $N m
say "shared guests of $size_mib MiB: accepted $accepted, refused $refused (each with a NoFit reason)"
[ "$accepted" -eq "$expected" ] || fail "accepted $accepted guests of $size_mib MiB, the cells' room at the RAM ratio holds $expected"
over=$("$NUMAPLACE" topology --connect "$URI" --include-defined --json | python3 -c '
import json, sys
host = json.load(sys.stdin)
ratio = host["allocation_ratio"]["ram"]
print(" ".join("cell %d: %d KiB used of %d" % (c["id"], c["usage"]["memory_kib"], c["memory_kib"] * ratio)
               for c in host["cells"] if c["usage"]["memory_kib"] > c["memory_kib"] * ratio))')
[ -z "$over" ] || fail "memory overcommitted beyond the RAM ratio: $over"
say "no cell's memory beyond its RAM ratio"
remove_guests

# --- 2. SIGKILL at random points -----------------------------------------------------------------
# Kill points are spread over twice the time one define takes here, so that most kills land
# inside a define (waiting for the lock, reading claims, defining) and some after it.
make_guest "${PREFIX}probe" 1 64
probe_start=$(date +%s%N)
define "${PREFIX}probe"
define_ms=$(( ($(date +%s%N) - probe_start) / 1000000 + 1 ))
remove_guests
say "one define takes $define_ms ms; kills land within $((2 * define_ms)) ms of its start"
killed=0
for run in $(seq 1 "$KILL_RUNS"); do
  victim="${PREFIX}k$run"; rival="${PREFIX}r$run"
  make_guest "$victim" 1 64; make_guest "$rival" 1 64
  "$NUMAPLACE" define "$WORK/$victim.xml" --connect "$URI" --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated \
    >/dev/null 2>&1 &
  pid=$!
  define "$rival" &
  delay_ms=$((RANDOM % (2 * define_ms + 1)))
  sleep "$((delay_ms / 1000)).$(printf '%03d' $((delay_ms % 1000)))"
  kill -9 "$pid" 2>/dev/null || true
  status=0
  wait "$pid" 2>/dev/null || status=$?
  [ "$status" -eq 137 ] && killed=$((killed + 1))
  wait
  # Some runs free everything again so that later victims die while holding a real choice.
  if [ $((run % 3)) -eq 0 ]; then remove_guests; fi
  pins_of_our_guests >"$WORK/pins-2"
  dup=$(awk '{print $2}' "$WORK/pins-2" | sort | uniq -d)
  [ -z "$dup" ] || fail "after kill run $run, pCPU(s) $dup held twice: $(cat "$WORK/pins-2")"
  held=$(wc -l <"$WORK/pins-2")
  [ "$held" -le "$free_pcpus" ] || fail "after kill run $run, $held pins on $free_pcpus free pCPUs"
  for g in $(our_guests); do  # every guest libvirt holds carries its claim: pins and our record
    # Captured first: grep -q closing the pipe early would kill virsh with SIGPIPE under pipefail.
    xml=$(virsh -c "$URI" dumpxml --inactive "$g")
    grep -q "<vcpupin " <<<"$xml" || fail "$g defined without its vcpupin"
    grep -q "numaplace" <<<"$xml" || fail "$g defined without numaplace's record"
  done
done
say "$KILL_RUNS SIGKILL runs ($killed killed mid-define): no pCPU ever held twice, every defined guest carries its pins and record"
# The lock is free again: a define right after the last kill answers within its lock timeout.
make_guest "${PREFIX}after" 1 64
timeout 60 bash -c "$(declare -f define); NUMAPLACE='$NUMAPLACE' URI='$URI' WORK='$WORK' define ${PREFIX}after" ||
  fail "a define after the kills did not finish: the host lock is stuck"
rc=$(cat "$WORK/${PREFIX}after.rc")
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || fail "define after the kills: exit $rc: $(cat "$WORK/${PREFIX}after.err")"
say "a define after the kills got the lock (exit $rc)"
echo "concurrency: 4 passed, 0 failed"

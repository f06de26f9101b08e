#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The libvirt hook end to end on a real libvirtd and QEMU:
#   1. a dedicated guest A is defined and started by numaplace, pinned to pCPU P;
#   2. A is saved (virsh save), and a guest B pinned by hand to P is started in its place;
#   3. A is restored (virsh restore): libvirt runs the hook with "restore begin", numaplace
#      places A again around the running B, and A must run on another pCPU (checked in /proc
#      and with virsh vcpupin), B still on P;
#   4. a guest C pinned by hand to A's new pCPU is started: the hook's "prepare begin" refuses it
#      (PinningCollision), so virsh start fails and says why.
# Usage: hook_e2e.sh NUMAPLACE SAMPLE_DOMAIN_XML
# The hook is installed as /etc/libvirt/hooks/qemu (a wrapper running tools/hooks/qemu with this
# build's numaplace) before libvirtd starts, since libvirtd looks for hooks at start. So this test
# needs to start libvirtd itself: exit 77 (skipped) when one already runs, when another hook is
# installed, or when not root. It removes the hook and stops what it started when done.
set -euo pipefail
NUMAPLACE=$(readlink -f "$1")
SAMPLE=$(readlink -f "$2")
SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
TAG=hook
HOOK=/etc/libvirt/hooks/qemu
MARK="numaplace hook e2e wrapper"
WORK=$(mktemp -d /tmp/numaplace-hook.XXXXXX)
GUESTS=(np-hook-a np-hook-b np-hook-c)
INSTALLED_HOOK=0
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
take_e2e_lock
cleanup() {
  if [ "$INSTALLED_HOOK" -eq 1 ] && grep -q "$MARK" "$HOOK" 2>/dev/null; then rm -f "$HOOK"; fi
  finish_e2e
}
trap cleanup EXIT

require_hook_slot

mkdir -p "$(dirname "$HOOK")"
cat >"$HOOK" <<WRAPPER
#!/bin/sh
# $MARK: removed when the test ends.
NUMAPLACE_BIN='$NUMAPLACE' exec sh '$SOURCE/tools/hooks/qemu' "\$@"
WRAPPER
chmod 0755 "$HOOK"
INSTALLED_HOOK=1
start_libvirtd
remove_guests

vcpu0_cpus() { vcpu_thread_cpus "$(qemu_pid "$1")" 0; }  # guest
virsh_pin() { virsh -c "$URI" vcpupin "$1" --vcpu 0 | awk '$1 == "0:" || $1 == "0" {print $NF}'; }

# --- 1. A, placed and started by numaplace -------------------------------------------------------
make_guest np-hook-a 1 128
"$NUMAPLACE" define "$WORK/np-hook-a.xml" --connect "$URI" --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated >/dev/null
"$NUMAPLACE" start np-hook-a --connect "$URI" >/dev/null
old=$(vcpu0_cpus np-hook-a) || fail "np-hook-a has no vCPU thread"
case "$old" in *[-,]*) fail "np-hook-a's dedicated vCPU may run on several pCPUs ('$old')" ;; esac
say "np-hook-a runs on pCPU $old"

# --- 2. saved; B takes its pCPU --------------------------------------------------------------------
virsh -c "$URI" save np-hook-a "$WORK/a.save" >/dev/null || fail "virsh save np-hook-a failed"
make_guest np-hook-b 1 128 "$old"
virsh -c "$URI" define "$WORK/np-hook-b.xml" >/dev/null
virsh -c "$URI" start np-hook-b >/dev/null || fail "np-hook-b (pinned by hand to $old) did not start"
[ "$(vcpu0_cpus np-hook-b)" = "$old" ] || fail "np-hook-b is not on pCPU $old"
say "np-hook-a saved; np-hook-b started on its pCPU $old"

# --- 3. restore: the hook places A again ----------------------------------------------------------
virsh -c "$URI" restore "$WORK/a.save" >"$WORK/restore.out" 2>&1 || fail "virsh restore failed: $(cat "$WORK/restore.out")"
[ "$(virsh -c "$URI" domstate np-hook-a)" = "running" ] || fail "np-hook-a is not running after restore"
new=$(vcpu0_cpus np-hook-a) || fail "np-hook-a has no vCPU thread after restore"
[ "$new" != "$old" ] || fail "np-hook-a was restored onto pCPU $old, which np-hook-b holds"
case "$new" in *[-,]*) fail "np-hook-a's dedicated vCPU may run on several pCPUs after restore ('$new')" ;; esac
[ "$(virsh_pin np-hook-a)" = "$new" ] || fail "virsh vcpupin says '$(virsh_pin np-hook-a)', /proc says '$new'"
[ "$(vcpu0_cpus np-hook-b)" = "$old" ] || fail "np-hook-b moved"
xml=$(virsh -c "$URI" dumpxml np-hook-a)
grep -q "numaplace:placement" <<<"$xml" || fail "the restored np-hook-a lost numaplace's record"
say "restored np-hook-a runs on pCPU $new (was $old, now np-hook-b's): the hook re-pinned it"

# --- 4. prepare begin refuses a guest pinned onto a running guest's pCPU -------------------------
make_guest np-hook-c 1 128 "$new"
virsh -c "$URI" define "$WORK/np-hook-c.xml" >/dev/null
if virsh -c "$URI" start np-hook-c >"$WORK/c.out" 2>&1; then
  fail "np-hook-c, pinned onto np-hook-a's pCPU $new, was started"
fi
grep -q "PinningCollision" "$WORK/c.out" || fail "np-hook-c was refused without numaplace's reason: $(cat "$WORK/c.out")"
say "np-hook-c (pinned onto $new) refused at start: $(grep -o 'PinningCollision[^;]*' "$WORK/c.out" | head -1)"
echo "hook: 3 passed, 0 failed"

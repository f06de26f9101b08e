#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The libvirt hook on restore and on a live migration of a 2-cell pinned guest, end to end on
# real libvirtd daemons and QEMU (TCG):
#   1. guest A (hw:numa_nodes=2, hw:cpu_policy=dedicated, guest cells of 96 and 32 MiB) is placed
#      by numaplace and started: vCPU 0 on pCPU 0 (host cell 0), vCPU 1 on pCPU 1 (host cell 1);
#   2. A is saved, a guest B pinned by hand to pCPU 0 is started: virsh restore of A is refused by
#      the hook (NoFit: A needs both pCPUs of this machine) and A stays saved, B untouched;
#   3. B gone, A is restored with its pins (still free: kept) and the same guest <cpu>;
#   4. A is saved again and restored on the same machine seen with its cells numbered the other
#      way (host cell 0 = pCPU 1): the hook re-pins it, vCPU 0 on pCPU 1, vCPU 1 on pCPU 0 (/proc
#      and virsh vcpupin), guest <cpu> (cells, memory, distances) byte-identical;
#   5. a second libvirtd ("host 2") runs in its own mount namespace (own /etc/libvirt with another
#      host_uuid and its own socket, /run/libvirt, /var/lib/libvirt, virtlogd) with the hook
#      installed, seeing the machine with the first numbering; a guest pinned by hand to pCPU 0
#      runs there: virsh migrate --live --p2p of A to host 2 is refused by host 2's hook (NoFit)
#      and A keeps running on host 1;
#   6. that guest gone, the live migration goes through: on host 2 A runs with new pins, vCPU 0 on
#      pCPU 0 and vCPU 1 on pCPU 1 (/proc and virsh vcpupin), guest <cpu> byte-identical.
# What this machine cannot show: it has 2 pCPUs and 1 NUMA node. A 2-cell dedicated guest needs one
# pCPU in each of two cells, i.e. both pCPUs, so while another guest holds any pCPU (or floats a
# vCPU over them) it fits nowhere: pCPUs taken by another guest can only end in a refusal here
# (steps 2 and 5); the new pins of steps 4 and 6 come from a host numbered otherwise. And libvirt
# refuses a nodeset naming a host node the kernel lacks ("unsupported configuration: NUMA node 1
# is unavailable", at virsh start); so the hooks see a 2-cell host from a capabilities file
# (cells {pCPU 0} and {pCPU 1}), and the test's hook wrapper, after numaplace printed its XML
# (kept in $WORK/hook/ and checked), binds every <numatune> nodeset to node 0, the only real one.
# That rewrite touches only <numatune>; pins, <cpu> and the record are numaplace's as printed.
# Usage: migrate_e2e.sh NUMAPLACE SAMPLE_DOMAIN_XML
# Needs root and no libvirtd running (the hook must be in place when libvirtd starts): else exit 77.
# Everything it starts (two daemon pairs, guests, the namespace) is stopped by pid when it ends.
set -euo pipefail
NUMAPLACE=$(readlink -f "$1")
SAMPLE=$(readlink -f "$2")
TAG=migrate
HOOK=/etc/libvirt/hooks/qemu
MARK="numaplace migrate e2e wrapper"
WORK=$(mktemp -d /tmp/numaplace-migrate.XXXXXX)
DST=$WORK/host2                                   # host 2's files: etc, lib, run, log, cache, sock
DST_URI="qemu+unix:///system?socket=$DST/sock/libvirt-sock"
GUESTS=(np-mig-a np-mig-b)
INSTALLED_HOOK=0
DST_STARTED=0
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
take_e2e_lock

dst_virsh() { virsh -c "$DST_URI" "$@"; }
stop_host2() {
  [ "$DST_STARTED" -eq 1 ] || return 0
  local g pidfile
  for g in "${GUESTS[@]}"; do
    dst_virsh destroy "$g" >/dev/null 2>&1 || true
    dst_virsh undefine "$g" >/dev/null 2>&1 || true
  done
  # A QEMU host 2 left behind (its daemon gone) would keep the namespace alive.
  for pidfile in "$DST"/run/qemu/*.pid; do [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true; done
  for pidfile in "$DST/libvirtd.pid" "$DST/virtlogd.pid"; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
}
cleanup() {
  stop_host2
  if [ "$INSTALLED_HOOK" -eq 1 ] && grep -q "$MARK" "$HOOK" 2>/dev/null; then rm -f "$HOOK"; fi
  finish_e2e
}
trap cleanup EXIT

require_hook_slot
unshare -m --propagation private true 2>/dev/null || skip "no mount namespace (unshare -m) for a second libvirtd"

# --- the hosts the hooks see: 2 cells of 1 pCPU and 256 MiB each, in either numbering ------------
two_cell_caps 0 1 >"$WORK/caps.xml"
two_cell_caps 1 0 >"$WORK/caps-renumbered.xml"
mkdir -p "$WORK/hook"

# The hook as libvirt runs it, for one host: numaplace decides with that host's view (the file
# named in $WORK/NAME.view); what it prints is kept in $WORK/hook/NAME-GUEST-OP.xml and passed on
# with <numatune> bound to node 0, this machine's only node (see the top of this file).
write_hook() {  # path host-name lock-file
  cat >"$1" <<WRAPPER
#!/bin/sh
# $MARK: removed when the test ends.
out=\$(NUMAPLACE_LOCK_FILE='$3' '$NUMAPLACE' hook qemu --capabilities "\$(cat '$WORK/$2.view')" -- "\$@") || exit \$?
[ -n "\$out" ] || exit 0
printf '%s\n' "\$out" >'$WORK/hook/$2-'"\$1-\$2.xml"
printf '%s\n' "\$out" | sed "/<numatune>/,/<\/numatune>/ s/nodeset=[\"'][^\"']*[\"']/nodeset='0'/"
WRAPPER
  chmod 0755 "$1"
}
on_node0() { sed "/<numatune>/,/<\/numatune>/ s/nodeset=[\"'][^\"']*[\"']/nodeset='0'/" "$@"; }
echo "$WORK/caps.xml" >"$WORK/host1.view"
echo "$WORK/caps.xml" >"$WORK/host2.view"

mkdir -p "$(dirname "$HOOK")"
write_hook "$HOOK" host1 /run/numaplace/host.lock
INSTALLED_HOOK=1
start_libvirtd
remove_guests

# Host 2's directories, copied from host 1's before any guest exists: no domains, no autostart.
mkdir -p "$DST"/{run,log,sock}
cp -a /etc/libvirt "$DST/etc"
cp -a /var/lib/libvirt "$DST/lib"
cp -a /var/cache/libvirt "$DST/cache"        # QEMU's probed capabilities: no second probe
rm -rf "$DST"/etc/qemu/*.xml "$DST"/etc/qemu/autostart "$DST"/etc/qemu/networks/autostart "$DST"/lib/qemu/domain-*
cat >"$DST/etc/libvirtd.conf" <<CONF
unix_sock_dir = "$DST/sock"
host_uuid = "6e756d61-706c-6163-652d-686f73743200"
CONF
write_hook "$DST/etc/hooks/qemu" host2 "$DST/host.lock"

a_cpus() { echo "$(vcpu_thread_cpus "$1" 0),$(vcpu_thread_cpus "$1" 1)"; }  # pid: "P0,P1" from /proc
pins() { "$@" vcpupin np-mig-a | awk '$1 ~ /^[01]:?$/ {printf "%s%s", sep, $NF; sep=","}'; }
guest_cpu() { sed -n '/<cpu /,/<\/cpu>/p'; }
expect_same_cpu() {  # what: the guest's <cpu> now ($WORK/cpu.now) against before ($WORK/cpu.before)
  [ -s "$WORK/cpu.now" ] || fail "$1: no <cpu> in the domain XML"
  diff "$WORK/cpu.before" "$WORK/cpu.now" >"$WORK/cpu.diff" || fail "$1: the guest's <cpu> changed:
$(cat "$WORK/cpu.diff")"
}
expect_printed_pins() {  # file pins: the pins numaplace itself printed
  [ -s "$1" ] || fail "the hook printed no XML ($1 missing)"
  local printed
  printed=$(grep -o '<vcpupin vcpu="[01]" cpuset="[^"]*"' "$1" | sed 's/.*cpuset="\([^"]*\)"/\1/' | paste -sd,)
  [ "$printed" = "$2" ] || fail "the hook printed pins '$printed', expected '$2'"
}

# --- 1. A placed by numaplace and started ----------------------------------------------------------
sed -e "s|<name>[^<]*</name>|<name>np-mig-a</name>|" -e "/<uuid>/d" -e "/<cputune>/,/<\/cputune>/d" \
    -e "/<numatune>/,/<\/numatune>/d" -e "/<numa>/,/<\/numa>/d" "$SAMPLE" >"$WORK/np-mig-a.xml"
"$NUMAPLACE" place "$WORK/np-mig-a.xml" --capabilities "$WORK/caps.xml" --spec hw:numa_nodes=2 \
  --spec hw:cpu_policy=dedicated --spec hw:numa_cpus.0=0 --spec hw:numa_mem.0=96 --spec hw:numa_cpus.1=1 \
  --spec hw:numa_mem.1=32 >"$WORK/a-placed.xml"
expect_printed_pins "$WORK/a-placed.xml" 0,1
on_node0 "$WORK/a-placed.xml" >"$WORK/a-define.xml"
virsh -c "$URI" define "$WORK/a-define.xml" >/dev/null
virsh -c "$URI" start np-mig-a >"$WORK/start.out" 2>&1 || fail "np-mig-a did not start: $(cat "$WORK/start.out")"
[ "$(a_cpus "$(qemu_pid np-mig-a)")" = "0,1" ] || fail "np-mig-a's vCPUs run on '$(a_cpus "$(qemu_pid np-mig-a)")', not 0,1"
virsh -c "$URI" dumpxml np-mig-a | guest_cpu >"$WORK/cpu.before"
grep -q "<numa>" "$WORK/cpu.before" || fail "np-mig-a has no guest NUMA cells: $(cat "$WORK/cpu.before")"
say "np-mig-a (2 guest cells, dedicated) runs with vCPU 0 on pCPU 0, vCPU 1 on pCPU 1"

# --- 2. saved; B takes pCPU 0; the restore is refused ---------------------------------------------
virsh -c "$URI" save np-mig-a "$WORK/a.save" >/dev/null || fail "virsh save np-mig-a failed"
make_guest np-mig-b 1 64 0
virsh -c "$URI" define "$WORK/np-mig-b.xml" >/dev/null
virsh -c "$URI" start np-mig-b >"$WORK/b.out" 2>&1 || fail "np-mig-b (pinned by hand to pCPU 0) did not start: $(cat "$WORK/b.out")"
if virsh -c "$URI" restore "$WORK/a.save" >"$WORK/restore.out" 2>&1; then
  fail "np-mig-a was restored though np-mig-b holds pCPU 0 (it runs on '$(a_cpus "$(qemu_pid np-mig-a)")')"
fi
grep -q "NoFit" "$WORK/restore.out" || fail "the restore failed without numaplace's reason: $(cat "$WORK/restore.out")"
[ "$(virsh -c "$URI" domstate np-mig-a)" = "shut off" ] || fail "np-mig-a is '$(virsh -c "$URI" domstate np-mig-a)' after a refused restore"
[ "$(vcpu_thread_cpus "$(qemu_pid np-mig-b)" 0)" = "0" ] || fail "np-mig-b moved off pCPU 0"
say "with np-mig-b on pCPU 0 the restore is refused: $(grep -o 'NoFit[^;]*fits' "$WORK/restore.out" | head -1)"
passed=1

# --- 3. B gone: restored with its pins --------------------------------------------------------------
virsh -c "$URI" destroy np-mig-b >/dev/null
rm -f "$WORK"/hook/*
virsh -c "$URI" restore "$WORK/a.save" >"$WORK/restore.out" 2>&1 || fail "virsh restore failed: $(cat "$WORK/restore.out")"
expect_printed_pins "$WORK/hook/host1-np-mig-a-restore.xml" 0,1
[ "$(a_cpus "$(qemu_pid np-mig-a)")" = "0,1" ] || fail "restored np-mig-a runs on '$(a_cpus "$(qemu_pid np-mig-a)")', not 0,1"
virsh -c "$URI" dumpxml np-mig-a | guest_cpu >"$WORK/cpu.now"
expect_same_cpu "restore with free pins"
say "restored with its pCPUs free, np-mig-a keeps pins 0,1 and its guest <cpu>"

# --- 4. restored on the machine numbered otherwise: new pins ---------------------------------------
virsh -c "$URI" save np-mig-a "$WORK/a.save" >/dev/null || fail "second virsh save np-mig-a failed"
echo "$WORK/caps-renumbered.xml" >"$WORK/host1.view"
rm -f "$WORK"/hook/*
virsh -c "$URI" restore "$WORK/a.save" >"$WORK/restore.out" 2>&1 || fail "virsh restore (renumbered host) failed: $(cat "$WORK/restore.out")"
expect_printed_pins "$WORK/hook/host1-np-mig-a-restore.xml" 1,0
grep -q 'host="0" vcpus="0" host-cpus="1"' "$WORK/hook/host1-np-mig-a-restore.xml" \
  || fail "the hook's record does not keep guest cell 0 on host cell 0 (now pCPU 1): $(grep 'numaplace:cell' "$WORK/hook/host1-np-mig-a-restore.xml")"
now=$(a_cpus "$(qemu_pid np-mig-a)")
[ "$now" = "1,0" ] || fail "np-mig-a restored on the renumbered host runs on '$now', expected vCPU 0 on 1, vCPU 1 on 0"
[ "$(pins virsh -c "$URI")" = "1,0" ] || fail "virsh vcpupin says '$(pins virsh -c "$URI")', /proc says '$now'"
virsh -c "$URI" dumpxml np-mig-a | guest_cpu >"$WORK/cpu.now"
expect_same_cpu "restore on the renumbered host"
say "restored on the renumbered host, np-mig-a runs with new pins (vCPU 0 on pCPU 1, vCPU 1 on pCPU 0), guest <cpu> byte-identical"
passed=2

# --- 5. host 2, a second libvirtd in its own mount namespace; a guest there on pCPU 0 --------------
cat >"$DST/start.sh" <<START
set -e
mount --bind '$DST/etc' /etc/libvirt
mount --bind '$DST/run' /run/libvirt
mount --bind '$DST/lib' /var/lib/libvirt
mount --bind '$DST/log' /var/log/libvirt
mount --bind '$DST/cache' /var/cache/libvirt
virtlogd -d -p '$DST/virtlogd.pid'
libvirtd -d -p '$DST/libvirtd.pid'
START
DST_STARTED=1
unshare -m --propagation private sh "$DST/start.sh" 9>&- || fail "host 2's libvirtd did not start"
for _ in $(seq 1 60); do dst_virsh version >/dev/null 2>&1 && break; sleep 0.5; done
dst_virsh version >/dev/null 2>&1 || fail "host 2's libvirtd does not answer at $DST_URI"
# Each daemon's capabilities read whole before they are searched: grep -m1 on virsh's pipe may exit
# while virsh still writes, and under pipefail virsh's SIGPIPE would end this script.
host_uuid() { awk -F'[<>]' '$2 == "uuid" && !seen {print $3; seen = 1}' "$1"; }  # the first: <host>'s
virsh -c "$URI" capabilities >"$WORK/caps1.now"
dst_virsh capabilities >"$WORK/caps2.now"
uuid1=$(host_uuid "$WORK/caps1.now")
uuid2=$(host_uuid "$WORK/caps2.now")
[ -n "$uuid1" ] && [ -n "$uuid2" ] || fail "a daemon's capabilities name no host UUID ('$uuid1', '$uuid2')"
[ "$uuid1" != "$uuid2" ] || fail "both daemons report host UUID $uuid1"
say "host 2: a second libvirtd at $DST_URI (host UUID $uuid2, host 1's is $uuid1)"
dst_virsh define "$WORK/np-mig-b.xml" >/dev/null
dst_virsh start np-mig-b >"$WORK/b.out" 2>&1 || fail "np-mig-b did not start on host 2: $(cat "$WORK/b.out")"
migrate() { virsh -c "$URI" migrate --live --p2p np-mig-a "$DST_URI" --migrateuri tcp://127.0.0.1 >"$WORK/migrate.out" 2>&1; }
if migrate; then
  fail "np-mig-a was migrated to host 2 though np-mig-b holds pCPU 0 there"
fi
grep -q "NoFit" "$WORK/migrate.out" || fail "the migration failed without numaplace's reason: $(cat "$WORK/migrate.out")"
[ "$(virsh -c "$URI" domstate np-mig-a)" = "running" ] || fail "np-mig-a is '$(virsh -c "$URI" domstate np-mig-a)' on host 1 after a refused migration"
[ "$(a_cpus "$(qemu_pid np-mig-a)")" = "1,0" ] || fail "np-mig-a moved on host 1 after a refused migration"
say "with np-mig-b on pCPU 0 of host 2 the migration is refused: $(grep -o 'NoFit[^;]*fits' "$WORK/migrate.out" | head -1)"
passed=3

# --- 6. the live migration to host 2: new pins, same guest ----------------------------------------
dst_virsh destroy np-mig-b >/dev/null
rm -f "$WORK"/hook/*
migrate || fail "virsh migrate --live --p2p to host 2 failed: $(cat "$WORK/migrate.out")"
expect_printed_pins "$WORK/hook/host2-np-mig-a-migrate.xml" 0,1
[ "$(dst_virsh domstate np-mig-a)" = "running" ] || fail "np-mig-a is '$(dst_virsh domstate np-mig-a)' on host 2"
[ "$(virsh -c "$URI" domstate np-mig-a)" = "shut off" ] || fail "np-mig-a still '$(virsh -c "$URI" domstate np-mig-a)' on host 1"
pid2=$(cat "$DST/run/qemu/np-mig-a.pid")
now=$(a_cpus "$pid2")
[ "$now" = "0,1" ] || fail "np-mig-a on host 2 runs on '$now', expected vCPU 0 on 0, vCPU 1 on 1"
[ "$(pins dst_virsh)" = "0,1" ] || fail "host 2's virsh vcpupin says '$(pins dst_virsh)', /proc says '$now'"
dst_virsh dumpxml np-mig-a >"$WORK/a-host2.xml"
grep -q "numaplace:placement" "$WORK/a-host2.xml" || fail "np-mig-a lost numaplace's record on host 2"
guest_cpu <"$WORK/a-host2.xml" >"$WORK/cpu.now"
expect_same_cpu "live migration to host 2"
say "migrated live to host 2, np-mig-a runs with new pins (vCPU 0 on pCPU 0, vCPU 1 on pCPU 1), guest <cpu> byte-identical"
passed=4
echo "migrate: $passed passed, 0 failed"

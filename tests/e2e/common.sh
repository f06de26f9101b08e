# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the end-to-end scripts (sourced, not run). Before sourcing, a script sets TAG (its
# message prefix), SAMPLE (the recipe-tested domain XML), WORK (its scratch directory) and
# GUESTS (the names of the guests it may create, removed before and after).
# Provides: say/fail/skip (and a report of any command that stops the script), take_e2e_lock,
# need_packages, start_libvirtd_unless_running,
# remove_guests, stop_started_daemons, finish_e2e, make_guest, qemu_pid, vcpu_thread_cpus,
# two_cell_caps.
URI=qemu:///system
STARTED_DAEMONS=()

say() { printf '%s: %s\n' "$TAG" "$*"; }
fail() { printf '%s: FAIL: %s\n' "$TAG" "$*" >&2; exit 1; }
skip() { say "skipped: $*"; exit 77; }

# A command that ends a script under set -e names itself and its line: without this the script
# stops with no word (CI once saw e2e.migrate end so, after a pipeline cut short by SIGPIPE under
# pipefail). Only in the script's own shell: a command substitution's failure is its caller's to
# judge, and commands whose status is tested (if, &&, ||, !) never trigger it.
set -E
report_stop() {  # status line command
  [ "$BASH_SUBSHELL" -eq 0 ] || return 0
  printf '%s: FAIL: line %s: "%s" exited %s\n' "$TAG" "$2" "$3" "$1" >&2
}
trap 'report_stop "$?" "$LINENO" "$BASH_COMMAND"' ERR

# One e2e run at a time on a machine: they share libvirtd and the host's pCPUs.
take_e2e_lock() {
  exec 9>/tmp/numaplace-e2e.lock
  flock -w 900 9 || fail "another e2e run holds /tmp/numaplace-e2e.lock"
}

# libvirt's daemon and QEMU, installed when missing (as root), else skip.
need_packages() {
  local pkg
  for pkg in libvirt-daemon-system qemu-system-x86; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" && continue
    [ "$(id -u)" -eq 0 ] || skip "$pkg missing and not root"
    say "installing $pkg"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
      "$pkg" >"$WORK/apt.log" 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
      apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "$pkg" >"$WORK/apt.log" 2>&1; } \
      || { cat "$WORK/apt.log"; skip "cannot install $pkg"; }
  done
}

# /dev/kvm as Debian's udev rules leave it (group kvm, 0660). Machines without udev may have it
# root-only: then libvirt's QEMU probe (as root) and its later check (as the qemu user) disagree
# about KVM, and libvirt 9.0 probes QEMU again on every call (7 s for `virsh capabilities`, 40 s for
# a validated define, seen here), which is all the e2e tests' time.
kvm_device_as_udev_leaves_it() {
  [ -c /dev/kvm ] && [ "$(id -u)" -eq 0 ] && getent group kvm >/dev/null || return 0
  [ "$(stat -c %G:%a /dev/kvm)" = "kvm:660" ] && return 0
  say "setting /dev/kvm to group kvm, mode 0660, as udev would"
  chgrp kvm /dev/kvm && chmod 0660 /dev/kvm
}

# Starts virtlogd and libvirtd by hand (no systemd), remembering them for stop_started_daemons.
start_libvirtd() {
  kvm_device_as_udev_leaves_it
  # Without the e2e lock's descriptor: a daemon left behind by a killed run must not hold the lock.
  virtlogd -d -p "$WORK/virtlogd.pid" 9>&-; STARTED_DAEMONS+=("$WORK/virtlogd.pid")
  libvirtd -d -p "$WORK/libvirtd.pid" 9>&-; STARTED_DAEMONS+=("$WORK/libvirtd.pid")
  for _ in $(seq 1 60); do virsh -c "$URI" version >/dev/null 2>&1 && break; sleep 0.5; done
  virsh -c "$URI" version >/dev/null 2>&1 || fail "libvirtd did not come up"
  # A freshly started libvirtd probes QEMU's capabilities on its first calls (tens of seconds
  # without KVM); let that finish before anything is timed.
  virsh -c "$URI" capabilities >/dev/null
}

start_libvirtd_unless_running() {
  virsh -c "$URI" version >/dev/null 2>&1 && return 0
  [ "$(id -u)" -eq 0 ] || skip "no libvirtd answers at $URI and not root to start one"
  start_libvirtd
}

remove_guests() {
  local g
  for g in "${GUESTS[@]}"; do
    virsh -c "$URI" destroy "$g" >/dev/null 2>&1 || true
    virsh -c "$URI" undefine "$g" >/dev/null 2>&1 || true
  done
}

stop_started_daemons() {
  local pidfile
  for pidfile in "${STARTED_DAEMONS[@]}"; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
}

# What every script does on exit: its guests, the daemons it started and its scratch go.
finish_e2e() {
  remove_guests
  stop_started_daemons
  rm -rf "$WORK"
}

# $WORK/NAME.xml: the sample renamed, VCPUS vCPUs (default 1) in one socket, MEMORY MiB (default:
# the sample's), no pins or NUMA of its own, or its vCPU 0 pinned by hand to PCPU when given.
make_guest() {  # name [vcpus] [memory_mib] [pcpu]
  local name=$1 vcpus=${2:-1} memory=${3:-} pcpu=${4:-}
  sed -e "s|<name>[^<]*</name>|<name>$name</name>|" -e "/<uuid>/d" \
      -e "s|<vcpu placement='static'>[0-9]*</vcpu>|<vcpu placement='static'>$vcpus</vcpu>|" \
      -e "/<cputune>/,/<\/cputune>/d" -e "/<numatune>/,/<\/numatune>/d" -e "/<numa>/,/<\/numa>/d" \
      -e "s|<topology [^/]*/>|<topology sockets='1' dies='1' cores='$vcpus' threads='1'/>|" "$SAMPLE" >"$WORK/$name.xml"
  if [ -n "$memory" ]; then
    sed -i -e "s|<memory unit='MiB'>[0-9]*</memory>|<memory unit='MiB'>$memory</memory>|" -e "/<currentMemory/d" \
      "$WORK/$name.xml"
  fi
  if [ -n "$pcpu" ]; then
    sed -i "s|</vcpu>|</vcpu><cputune><vcpupin vcpu='0' cpuset='$pcpu'/></cputune>|" "$WORK/$name.xml"
  fi
}

# This 2-pCPU, 1-node machine seen as a host of 2 cells of 1 pCPU and 256 MiB each (distances 10/21),
# for --capabilities: the pCPU of cell 0 and that of cell 1 (0 1, or 1 0 numbered the other way).
two_cell_caps() {  # cpu of cell 0, cpu of cell 1
  cat <<CAPS
<capabilities>
  <host>
    <uuid>00000000-0000-0000-0000-000000000018</uuid>
    <cpu><arch>x86_64</arch><topology sockets='2' dies='1' cores='1' threads='1'/><pages unit='KiB' size='4'/></cpu>
    <topology>
      <cells num='2'>
        <cell id='0'>
          <memory unit='KiB'>262144</memory><pages unit='KiB' size='4'>65536</pages>
          <distances><sibling id='0' value='10'/><sibling id='1' value='21'/></distances>
          <cpus num='1'><cpu id='$1' socket_id='0' die_id='0' core_id='0' siblings='$1'/></cpus>
        </cell>
        <cell id='1'>
          <memory unit='KiB'>262144</memory><pages unit='KiB' size='4'>65536</pages>
          <distances><sibling id='0' value='21'/><sibling id='1' value='10'/></distances>
          <cpus num='1'><cpu id='$2' socket_id='1' die_id='0' core_id='0' siblings='$2'/></cpus>
        </cell>
      </cells>
    </topology>
  </host>
</capabilities>
CAPS
}

qemu_pid() { cat "/run/libvirt/qemu/$1.pid"; }

# Cpus_allowed_list of a QEMU process's vCPU thread ("CPU n/TCG" or "/KVM" in comm).
vcpu_thread_cpus() {  # pid vcpu
  local pid=$1 vcpu=$2 task
  for task in /proc/"$pid"/task/*; do
    if grep -qE "^CPU $vcpu/(TCG|KVM)$" "$task/comm" 2>/dev/null; then
      awk '/^Cpus_allowed_list/ {print $2}' "$task/status"; return 0
    fi
  done
  return 1
}

# The hook tests install $HOOK (marked $MARK) and must start libvirtd themselves: root, the packages,
# no libvirtd running, no hook of someone else's in the way; otherwise skip.
require_hook_slot() {
  [ "$(id -u)" -eq 0 ] || skip "not root (the hook goes to $HOOK and libvirtd must be started)"
  need_packages
  if virsh -c "$URI" version >/dev/null 2>&1; then skip "a libvirtd already runs; this test must start one after installing the hook"; fi
  if [ -e "$HOOK" ] && ! grep -q "$MARK" "$HOOK"; then skip "$HOOK exists and is not this test's"; fi
}

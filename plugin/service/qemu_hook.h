/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What libvirt's QEMU hook decides for one operation, given the domain XML libvirt passed on
// stdin, this host, and the guests running here (from libvirt's status files: the hook never
// calls back into libvirtd, which waits for it). Pure of I/O: the caller loads the host and
// the running guests lazily through HookSources, prints the verdict, and owns the timeout
// and the disable switch (tools/numaplace/hook_command.cpp).
//   migrate begin, restore begin: a guest whose metadata holds a numaplace request is placed
//     again for this host around the running guests; new_xml is the domain with only its host-side
//     bindings rewritten (xml/guest_view.h: what the guest sees stays byte-identical, as libvirt
//     requires, or the operation is refused with GuestViewWouldChange). A guest
//     without a numaplace request passes unchanged (new_xml empty). A guest that cannot be
//     placed is refused, and so is one that would leave a running guest's thread no pCPU.
//   prepare begin: refused when its pinned pCPUs are held by a running guest.
//   anything else: passes, stdin unread (hook_reads_input is false).
// No input throws or crashes: every failure is a refusal with a named error.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "placement/model/error.h"
#include "placement/model/host_topology.h"
#include "placement/lifecycle/narrowing.h"
#include "plugin/sources/libvirt_domains.h"

namespace numaplace::plugin {

struct HookInput {
  std::string guest;  // NAME as libvirt passed it
  std::string op;     // e.g. "migrate", "restore", "prepare", "started"
  std::string subop;  // e.g. "begin"
  std::string domain_xml;
};

struct HookSources {
  std::function<Result<HostTopology>()> host;        // this host, without claims
  // The guests running here; an error when any of them cannot be read (the hook cannot decide).
  std::function<Result<std::vector<DomainXml>>()> running;
};

struct HookVerdict {
  bool refused = false;
  Error refusal;                      // when refused: why
  std::string new_xml;                // when not empty: print it, libvirt uses it
  // Distances kept as the guest saw them although the new host cells are at others; on prepare
  // begin, a guest numaplace did not place whose pins or running guests could not be read.
  std::vector<std::string> warnings;
  // Threads of running guests that may still run on the pCPUs the placed guest takes; the hook
  // cannot re-pin them (libvirt waits on it), so they are named (numaplace start narrows them).
  std::vector<Narrowing> unnarrowed;
};

// Whether libvirt's XML on stdin matters for this operation (otherwise: pass, unread).
bool hook_reads_input(const std::string& op, const std::string& subop);
// Whether the operation places the guest again (migrate begin, restore begin): it hands out pCPUs,
// so the caller holds the host lock around it, as define and start do.
bool hook_places_again(const std::string& op, const std::string& subop);

HookVerdict decide_qemu_hook(const HookInput& input, const HookSources& sources);

}  // namespace numaplace::plugin

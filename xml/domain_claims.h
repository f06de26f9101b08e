/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Reads what an existing domain holds on this host (a GuestClaim) from its XML, as libvirt
// enforces it (xml/domain_bindings.h): a vCPU allowed on one pCPU holds that pCPU; a vCPU
// allowed on several is shared load spread over their cells; every thread (vCPUs, emulator,
// iothreads) keeps where it may run; guest cell memory goes where its <memnode> (or
// <numatune><memory>) binds it, as huge pages when <memoryBacking><hugepages> says so, and
// RAM-backed memory devices where their <nodemask> (or their guest cell) binds them; memory
// bound nowhere stays unbound; every <hostdev> and <interface type='hostdev'> PCI device is
// held. numaplace's own record adds what libvirt's elements cannot show: the pCPU reserved
// for the emulator and isolate's sibling threads (held, though no vCPU runs there), and how a
// confined guest's memory is split over its cells. A <vcpupin> onto a pCPU this host does not
// have, or memory bound to a node it does not have, is refused ("PinBeyondHost"), unless the
// guest runs already (BeyondHost::CountWithin): CPUs go offline under running guests (SMT turned
// off), and what such a guest holds on this host is still known.
#pragma once

#include <libxml/tree.h>

#include <string>
#include <vector>

#include "placement/lifecycle/claims.h"
#include "placement/model/error.h"
#include "placement/model/host_topology.h"

namespace numaplace::xml {

enum class BeyondHost {
  Refuse,       // PinBeyondHost: a domain about to be placed or started, or a claim an operator gives
  CountWithin,  // a running guest: a pin's pCPUs the host lacks are left out (a pin left with none
                // leaves the vCPU where <vcpu cpuset> lets it run, as the kernel moves a thread whose
                // CPUs all went offline); memory bound to missing nodes counts on the nodes left (none:
                // bound nowhere known). Each is said in `notes`.
};

Result<GuestClaim> read_guest_claim(const xmlDoc* doc, const HostTopology& host, const std::string& what,
                                    BeyondHost beyond = BeyondHost::Refuse, std::vector<std::string>* notes = nullptr);

}  // namespace numaplace::xml

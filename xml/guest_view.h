/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Placing a running guest again where the guest must not notice: libvirt's migrate and restore
// compare what the guest sees (its ABI) with what it had, and refuse any change. keep_guest_view
// takes the domain as it was and puts in only the host-side bindings of its new placement:
//   <vcpu>'s cpuset and placement attributes, <cputune>, <numatune>, numaplace's metadata record.
// Everything else stays as it was, byte for byte: the vCPU count, memory, <cpu> (guest cells,
// their vCPUs and memory, distances, CPU topology), <memoryBacking>, devices.
// When the new placement needs the guest to see something else (other cells, vCPUs, memory or
// page backing), no host-side binding honours the guest: GuestViewWouldChange, naming what. Only
// the cells' distances may differ (the host cells chosen are nearer or farther than those the
// guest was told of); they are kept as the guest saw them, and distances_differ says so.
#pragma once

#include <libxml/tree.h>

#include <string>

#include "placement/model/error.h"

namespace numaplace::xml {

struct GuestViewKept {
  std::string domain_xml;
  bool distances_differ = false;
};

Result<GuestViewKept> keep_guest_view(const xmlDoc* original, const xmlDoc* placed, const std::string& what);

}  // namespace numaplace::xml

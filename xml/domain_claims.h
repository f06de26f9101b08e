// Reads what an existing domain holds on this host (a GuestClaim) from its XML.
// numaplace's own placement record is exact and wins. Otherwise the claim is
// inferred from what libvirt will enforce: a vCPU pinned to one pCPU holds that
// pCPU; a vCPU allowed on several pCPUs is shared load spread over their cells;
// guest cell memory goes where <numatune><memnode> (or <memory>) binds it, as
// huge pages when <memoryBacking><hugepages> says so; unbound memory stays unbound.
// A <vcpupin> onto a pCPU this host does not have is refused ("PinBeyondHost").
#pragma once

#include <libxml/tree.h>

#include <string>

#include "placement/claims.h"
#include "placement/error.h"
#include "placement/host_topology.h"

namespace numaplace::xml {

Result<GuestClaim> read_guest_claim(const xmlDoc* doc, const HostTopology& host, const std::string& what);

}  // namespace numaplace::xml

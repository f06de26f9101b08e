/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Reads `virsh capabilities` XML (host/topology/cells) into a HostTopology:
// cells with CPUs, thread siblings, memory, page pools and distances (indexed
// by cell position). Every CPU is usable for shared and dedicated guests.
// Refuses, with a named error, XML that is not capabilities, has no NUMA
// topology, or carries impossible values (duplicate ids, bad cpulists, sizes).
#pragma once

#include <string_view>

#include "placement/model/error.h"
#include "placement/model/host_topology.h"

namespace numaplace::xml {

Result<HostTopology> read_capabilities(std::string_view text, std::string_view what = "capabilities XML");

}  // namespace numaplace::xml

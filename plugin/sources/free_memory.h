/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Free memory per NUMA cell as a live source reports it (libvirt's
// virNodeGetCellsFreeMemory, libnuma's numa_node_size64), and the one way it
// enters the host model: apply_free_memory raises each cell's memory usage to
// at least what the host shows in use (memory - free). It never lowers a usage
// already recorded (claims of guests), so the two do not add up twice. Cells the
// report does not name are left alone; reported ids that are not host cells
// (sparse node numbering) are ignored.
#pragma once

#include <cstdint>
#include <vector>

#include "placement/model/host_topology.h"

namespace numaplace::plugin {

struct CellFreeMemory {
  std::uint32_t cell = 0;
  std::uint64_t free_kib = 0;
};

void apply_free_memory(HostTopology& host, const std::vector<CellFreeMemory>& free);

}  // namespace numaplace::plugin

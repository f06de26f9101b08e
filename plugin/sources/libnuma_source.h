/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The live machine through libnuma: each configured NUMA node's total and free
// memory (numa_node_size64, in KiB) and the node distance matrix (numa_distance,
// relative: 10 is local; empty rows when the kernel reports none). On a machine
// or container where libnuma is unusable (numa_available() < 0) every call is a
// "NumaUnavailable" error. apply_live_free_memory folds the free memory into a
// host model's usage (see plugin/sources/free_memory.h): only when a caller asks for it,
// since it counts every process's memory, not only guests'.
#pragma once

#include <cstdint>
#include <vector>

#include "placement/model/error.h"
#include "placement/model/host_topology.h"
#include "plugin/sources/free_memory.h"

namespace numaplace::plugin {

struct NumaNodeMemory {
  std::uint32_t node = 0;
  std::uint64_t total_kib = 0;
  std::uint64_t free_kib = 0;
};

struct LibnumaReport {
  std::vector<NumaNodeMemory> nodes;                  // ascending node ids
  std::vector<std::vector<std::uint32_t>> distances;  // [i][j] between nodes[i] and nodes[j]
};

Result<LibnumaReport> read_libnuma();

std::vector<CellFreeMemory> free_memory_of(const LibnumaReport& report);

// Reads libnuma now and raises each cell's memory usage to what the node shows in use.
Status apply_live_free_memory(HostTopology& host);

}  // namespace numaplace::plugin

// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/sources/libnuma_source.h"

#include <numa.h>

#include <string>

namespace numaplace::plugin {

Result<LibnumaReport> read_libnuma() {
  if (numa_available() < 0) {
    return make_error("NumaUnavailable", "libnuma reports no NUMA support on this machine (numa_available() < 0): the "
                                         "kernel lacks it or the process may not query memory policy; read the host "
                                         "from libvirt (--connect) or hwloc (--hwloc) instead");
  }
  LibnumaReport report;
  const int max_node = numa_max_node();
  for (int node = 0; node <= max_node; ++node) {
    if (numa_nodes_ptr != nullptr && numa_bitmask_isbitset(numa_nodes_ptr, static_cast<unsigned>(node)) == 0) continue;
    long long free_bytes = 0;
    const long long total_bytes = numa_node_size64(node, &free_bytes);
    if (total_bytes < 0) continue;  // no such node (sparse numbering)
    NumaNodeMemory memory;
    memory.node = static_cast<std::uint32_t>(node);
    memory.total_kib = static_cast<std::uint64_t>(total_bytes) / 1024;
    memory.free_kib = free_bytes > 0 ? static_cast<std::uint64_t>(free_bytes) / 1024 : 0;
    report.nodes.push_back(memory);
  }
  if (report.nodes.empty()) {
    return make_error("NumaUnavailable", "libnuma lists no NUMA node with memory on this machine");
  }
  for (const auto& from : report.nodes) {
    std::vector<std::uint32_t> row;
    for (const auto& to : report.nodes) {
      const int distance = numa_distance(static_cast<int>(from.node), static_cast<int>(to.node));
      if (distance <= 0) {  // libnuma does not know
        row.clear();
        break;
      }
      row.push_back(static_cast<std::uint32_t>(distance));
    }
    report.distances.push_back(std::move(row));
  }
  return report;
}

std::vector<CellFreeMemory> free_memory_of(const LibnumaReport& report) {
  std::vector<CellFreeMemory> out;
  for (const auto& node : report.nodes) out.push_back({node.node, node.free_kib});
  return out;
}

Status apply_live_free_memory(HostTopology& host) {
  auto report = read_libnuma();
  if (!report) return report.error();
  apply_free_memory(host, free_memory_of(*report));
  return Done{};
}

}  // namespace numaplace::plugin

// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/host_consistency.h"

namespace numaplace {
namespace {

Status check_distances(const HostTopology& host, const std::string& what) {
  const std::size_t cells = host.cells.size();
  for (std::size_t i = 0; i < cells; ++i) {
    const HostCell& cell = host.cells[i];
    const std::string named = what + ": cell " + std::to_string(cell.id);
    if (cell.distances.empty()) continue;
    if (cell.distances.size() != cells) {
      return make_error("InvalidNumaDistances", named + " lists " + std::to_string(cell.distances.size()) +
                                                    " distances for " + std::to_string(cells) +
                                                    " cells; a row gives one distance per cell, or none");
    }
    for (std::size_t j = 0; j < cells; ++j) {
      const std::string to = " to cell " + std::to_string(host.cells[j].id);
      if (cell.distances[j] == 0) {
        return make_error("InvalidNumaDistances", named + " gives a distance of 0" + to +
                                                      "; distances are relative, a cell's own is the least (10 by ACPI)");
      }
      if (cell.distances[j] < cell.distances[i]) {
        return make_error("InvalidNumaDistances", named + " is farther from itself (" + std::to_string(cell.distances[i]) +
                                                      ") than" + to + " (" + std::to_string(cell.distances[j]) +
                                                      "); the matrix is damaged: take it from the host again");
      }
    }
  }
  return Done{};
}

}  // namespace

Status check_host_consistency(const HostTopology& host, const std::string& what) {
  // Nested loops, not sets: the packed-cells reader runs this for each of a scheduler's hosts.
  for (std::size_t i = 0; i < host.cells.size(); ++i) {
    const HostCell& cell = host.cells[i];
    bool repeated = false;
    for (std::size_t j = 0; j < i && !repeated; ++j) repeated = host.cells[j].id == cell.id;
    if (repeated) {
      return make_error("DuplicateNumaNode", what + ": NUMA cell " + std::to_string(cell.id) +
                                                 " is listed twice; a host lists each node once");
    }
  }
  // The bounds every reader holds a host to, so that a host one reads (and `topology --json`
  // writes) another reads back: at most 1 EiB of memory a cell, pages of at most 1 TiB, 2^40 a pool.
  constexpr std::uint64_t kMaxMemoryKib = std::uint64_t{1} << 50;
  constexpr std::uint64_t kMaxPageKib = std::uint64_t{1} << 30;
  constexpr std::uint64_t kMaxPages = std::uint64_t{1} << 40;
  for (const auto& cell : host.cells) {
    const std::string named = what + ": cell " + std::to_string(cell.id);
    if (cell.memory_kib > kMaxMemoryKib) {
      return make_error("InconsistentHost", named + " reports " + std::to_string(cell.memory_kib) +
                                                " KiB of memory, more than any machine has (at most 2^50 KiB, 1 EiB)");
    }
    for (const auto& pool : cell.pages) {
      if (pool.size_kib > kMaxPageKib || pool.total > kMaxPages) {
        return make_error("InconsistentHost", named + " reports " + std::to_string(pool.total) + " pages of " +
                                                  std::to_string(pool.size_kib) +
                                                  " KiB; pages are at most 1 TiB, a pool at most 2^40 pages");
      }
    }
  }
  if (const auto problem = cell_cpu_problem(host)) return make_error("InconsistentHost", what + ": " + *problem);
  if (auto distances = check_distances(host, what); !distances) return distances;
  for (std::size_t d = 0; d < host.pci.size(); ++d) {
    const PciDevice& device = host.pci[d];
    bool repeated = false;
    for (std::size_t e = 0; e < d && !repeated; ++e) repeated = !device.address.empty() && host.pci[e].address == device.address;
    if (repeated) {
      return make_error("InconsistentHost", what + ": PCI device " + device.address +
                                                " is listed twice; a device is counted once, or it could be given twice");
    }
  }
  return Done{};
}

Status check_pci_device_nodes(const HostTopology& host, const std::string& what) {
  for (const auto& device : host.pci) {
    if (device.numa_node && host.find_cell(*device.numa_node) == nullptr) {
      return make_error("InconsistentHost", what + ": PCI device " + device.address + " is on NUMA node " +
                                                std::to_string(*device.numa_node) + ", but the host has cells " +
                                                cell_id_list(host) + "; give the device's node as the host reports it");
    }
  }
  return Done{};
}

}  // namespace numaplace

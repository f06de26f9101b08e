// SPDX-License-Identifier: LGPL-2.1-or-later
#include "numaplace/topology_table.h"

#include "numaplace/cli_common.h"
#include "numaplace/host_source.h"
#include "placement/lifecycle/default_placement.h"

namespace numaplace::cli {

std::vector<std::vector<std::string>> topology_rows(const HostTopology& host) {
  std::vector<std::vector<std::string>> rows{{"cell", "cpus", "cores", "memory MiB", "pages KiB: free/total", "distances",
                                              "held pCPUs", "free pCPUs", "shared load", "used MiB", "free MiB",
                                              "pci"}};
  for (const auto& cell : host.cells) {
    std::string pages;
    for (const auto& p : cell.pages) {
      pages += (pages.empty() ? "" : " ") + std::to_string(p.size_kib) + ":" + std::to_string(p.free()) + "/" +
               std::to_string(p.total);
    }
    std::string distances;
    for (auto d : cell.distances) distances += (distances.empty() ? "" : " ") + std::to_string(d);
    // Free: what no guest holds of what guests may use at all (the host configuration's sets).
    const CpuSet usable = cell.shared_cpus.united(cell.dedicated_cpus);
    const CpuSet free = usable.minus(cell.usage.pinned_cpus);
    rows.push_back({std::to_string(cell.id), to_cpu_list(cell.cpus), std::to_string(cell.siblings.size()),
                    std::to_string(cell.memory_kib / 1024), pages.empty() ? "-" : pages,
                    distances.empty() ? "-" : distances,
                    cell.usage.pinned_cpus.empty() ? "-" : to_cpu_list(cell.usage.pinned_cpus),
                    free.empty() ? "-" : to_cpu_list(free), format_load(cell.usage.shared_cpus),
                    std::to_string(cell.usage.memory_kib / 1024),
                    std::to_string(strict_memory_room_kib(host, cell) / 1024), pci_devices_of_cell(host, cell.id)});
  }
  return rows;
}

std::string describe_holdings(const HostTopology& host, const GuestClaim& claim) {
  std::string out;
  for (const auto& cell : claim.cells) {
    if (host.find_cell(cell.host_cell) == nullptr) continue;
    out += (out.empty() ? "" : " ") + std::string("cell ") + std::to_string(cell.host_cell) + " {";
    std::string sep;
    if (!cell.pinned_cpus.empty()) {
      out += "pinned " + to_cpu_list(cell.pinned_cpus);
      sep = ", ";
    }
    if (!cell.reserved_cpus.empty()) {
      out += sep + "held idle " + to_cpu_list(cell.reserved_cpus);
      sep = ", ";
    }
    if (cell.shared_vcpus > 0) {
      out += sep + "load " + format_load(cell.shared_vcpus);
      sep = ", ";
    }
    if (cell.memory_kib > 0) {
      out += sep + std::to_string(cell.memory_kib / 1024) + " MiB";
      sep = ", ";
    }
    for (const auto& [size, count] : cell.pages) {
      out += sep + std::to_string(count) + "x" + std::to_string(size) + " KiB pages";
      sep = ", ";
    }
    out += "}";
  }
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : " ") + part; };
  if (claim.unbound_memory_kib > 0) add("unbound " + std::to_string(claim.unbound_memory_kib / 1024) + " MiB");
  if (claim.unbound_vcpus > 0) add("unbound load " + format_load(claim.unbound_vcpus));
  for (const auto& device : claim.pci_devices) add("pci " + device);
  return out;
}

}  // namespace numaplace::cli

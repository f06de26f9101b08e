// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace topology: the host's cells, CPUs, memory, pages, distances, PCI
// devices, and who holds what, as a table or JSON.
#include <algorithm>
#include <iostream>
#include <memory>

#include "numaplace/cli_common.h"
#include "numaplace/command.h"
#include "numaplace/json_output.h"
#include "placement/model/count_words.h"
#include "placement/lifecycle/default_placement.h"
#include "plugin/sources/host_json.h"

namespace numaplace::cli {
namespace {

struct TopologyOptions {
  HostSourceOptions host;
  std::vector<std::string> claims;
  bool include_defined = false;
  bool json = false;
};

// Who holds what, per cell: one line per guest with its pins, load and memory.
void print_holders(const HostTopology& host, const std::vector<GuestClaim>& claims) {
  if (claims.empty()) return;
  std::cout << "\nguests holding resources:\n";
  for (const auto& claim : claims) {
    std::cout << "  " << claim.name << (claim.running ? "" : " (defined, not running)")
              << (claim.placed_by_numaplace ? " [numaplace record]" : "") << ":";
    for (const auto& cell : claim.cells) {
      if (host.find_cell(cell.host_cell) == nullptr) continue;
      std::cout << " cell " << cell.host_cell << " {";
      std::string sep;
      if (!cell.pinned_cpus.empty()) {
        std::cout << "pinned " << to_cpu_list(cell.pinned_cpus);
        sep = ", ";
      }
      if (!cell.reserved_cpus.empty()) {
        std::cout << sep << "held idle " << to_cpu_list(cell.reserved_cpus);
        sep = ", ";
      }
      if (cell.shared_vcpus > 0) {
        std::cout << sep << "load " << format_load(cell.shared_vcpus);
        sep = ", ";
      }
      if (cell.memory_kib > 0) {
        std::cout << sep << cell.memory_kib / 1024 << " MiB";
        sep = ", ";
      }
      for (const auto& [size, count] : cell.pages) {
        std::cout << sep << count << "x" << size << " KiB pages";
        sep = ", ";
      }
      std::cout << "}";
    }
    if (claim.unbound_memory_kib > 0) std::cout << " unbound " << claim.unbound_memory_kib / 1024 << " MiB";
    if (claim.unbound_vcpus > 0) std::cout << " unbound load " << format_load(claim.unbound_vcpus);
    for (const auto& device : claim.pci_devices) std::cout << " pci " << device;
    std::cout << '\n';
  }
}

void print_topology_table(const HostTopology& host) {
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
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      std::cout << row[i];
      if (i + 1 < row.size()) std::cout << std::string(widths[i] - row[i].size() + 2, ' ');
    }
    std::cout << '\n';
  }
  if (std::string pci = pci_devices_without_cell(host); pci != "-") {
    std::cout << "pci without NUMA node: " << pci << '\n';
  }
}

int run_topology(const TopologyOptions& o) {
  const HostSourceOptions source = with_default_host(o.host);
  auto host = load_host(source);
  if (!host) return report(host.error(), o.json);
  auto claims = fold_claims(*host, source, o.claims, o.include_defined, {}, {});
  if (!claims) return report(claims.error(), o.json);
  if (o.json) {
    nlohmann::json doc = plugin::host_to_json(*host);
    doc["guests"] = to_json(*claims);
    std::cout << doc.dump(2) << '\n';
  } else {
    std::cout << "host: " << describe_source(source) << ", " << count_of(host->cells.size(), "NUMA cell") << "\n";
    print_topology_table(*host);
    print_holders(*host, *claims);
  }
  return 0;
}

}  // namespace

Command register_topology(CLI::App& app) {
  auto options = std::make_shared<TopologyOptions>();
  auto* topology = app.add_subcommand("topology", "Show the host's NUMA cells, CPUs, memory and distances");
  topology->footer(
      std::string(
          "The table has a row per host cell: its CPUs, cores, memory, page pools (free/total pages per size\n"
          "in KiB), distances, and who holds what: held pCPUs (pins, isolate's siblings, isolated emulator\n"
          "pCPUs), free pCPUs, shared load (floating vCPUs), used MiB, free MiB (small pages a strict binding\n"
          "may still take) and its PCI devices, each device's holder in [...]. The list of guests holding\n"
          "resources follows, per guest and cell: pinned pCPUs, pCPUs held idle, floating load, memory and\n"
          "pages, and its PCI devices. With a libvirt host its running guests are read (defined ones placed by\n"
          "numaplace with --include-defined); --claim adds domain XML files by hand.\n"
          "\n"
          "--json prints the host model: cells (id, cpus, siblings, memory_kib, pages, distances,\n"
          "shared_cpuset, dedicated_cpuset, usage, and under \"free\" what a new guest could still get:\n"
          "dedicated_cpus to pin, floating_cpus to float on, memory_kib a strict binding may take, free pages\n"
          "per size), pci (address, numa_node, vendor_id, product_id, class_id, is_pf, parent_pf, allocated,\n"
          "held_by: the guest whose <hostdev> holds it), accounting, allocation_ratio, unbound_memory_kib, and\n"
          "guests (name, uuid, running, placed_by_numaplace, cells, pci_devices, unbound_memory_kib,\n"
          "unbound_vcpus); an error is {\"error\": {\"name\", \"message\"}}. CPU lists are arrays of ids\n"
          "(an empty one is []). Without \"guests\" it is the host JSON that place --host-json and rank\n"
          "read back (\"free\" is computed and ignored there).\n"
          "\n") +
      kHostSourcesHelp +
      std::string(
          "\n"
          "\n"
          "Exit codes: 0 done; 1 bad input (a named error on stderr); 2 usage or an unreadable file (and\n"
          "FreeMemoryUnavailable); 4 the host could not be read (or libvirt or libnuma not available).\n"
          "Examples:\n"
          "  numaplace topology                                  # this machine (stderr says how it was read)\n"
          "  numaplace topology --connect test:///default         # libvirt's built-in test host\n"
          "  numaplace topology --capabilities tests/data/samples/libvirt/caps-4cell.xml\n"
          "  numaplace topology --capabilities tests/data/samples/libvirt/caps-2cell.xml \\\n"
          "      --claim tests/data/samples/libvirt/domain-testdriver-2cell.xml\n"
          "  numaplace topology --hwloc tests/data/samples/hwloc/synth-2pkg-4numa-pci-distances.xml \\\n"
          "      --nodedev tests/data/samples/libvirt/nodedev-pci-gpu-numa3.xml --json\n"
          "  numaplace topology --capabilities tests/data/samples/libvirt/caps-2cell.xml \\\n"
          "      --nodedev tests/data/samples/libvirt/nodedev-pci-gpu-numa3.xml   # InvalidNodeDevice: node 3\n"
          "  numaplace topology --connect qemu:///system --include-defined"));
  add_host_options(topology, options->host);
  topology->add_flag("--json", options->json, "print the host model as JSON");
  add_claim_options(topology, options->claims, options->include_defined, options->host.status_dir);
  return {topology, [options] { return run_topology(*options); }};
}

}  // namespace numaplace::cli

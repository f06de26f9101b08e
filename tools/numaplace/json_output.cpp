// SPDX-License-Identifier: LGPL-2.1-or-later
#include "numaplace/json_output.h"

#include "placement/lifecycle/default_placement.h"

namespace numaplace::cli {

nlohmann::json to_json(const Placement& placement) {
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& cell : placement.cells) {
    nlohmann::json pinning = nlohmann::json::object();
    for (const auto& [v, p] : cell.pinning) pinning[std::to_string(v)] = p;
    cells.push_back({{"guest_cell", cell.guest_cell},
                     {"host_cell", cell.host_cell},
                     {"guest_cpus", to_cpu_list(cell.guest_cpus)},
                     {"host_cpus", to_cpu_list(cell.host_cpus)},
                     {"memory_kib", cell.memory_kib},
                     {"pagesize_kib", cell.pagesize_kib > 0 ? nlohmann::json(cell.pagesize_kib) : nlohmann::json()},
                     {"pinning", pinning},
                     {"cpuset_reserved", cell.cpuset_reserved.empty() ? nlohmann::json() : nlohmann::json(to_cpu_list(cell.cpuset_reserved))},
                     {"isolated_cpus", cell.isolated_cpus.empty() ? nlohmann::json() : nlohmann::json(to_cpu_list(cell.isolated_cpus))}});
  }
  return {{"cells", cells}};
}

nlohmann::json to_json(const std::vector<CellRejection>& rejections) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rejections) {
    out.push_back({{"guest_cell", r.guest_cell}, {"host_cell", r.host_cell}, {"reason", r.reason}});
  }
  return out;
}

nlohmann::json to_json(const std::vector<GuestClaim>& claims) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& claim : claims) {
    nlohmann::json cells = nlohmann::json::array();
    for (const auto& cell : claim.cells) {
      nlohmann::json pages = nlohmann::json::object();
      for (const auto& [size, count] : cell.pages) pages[std::to_string(size)] = count;
      cells.push_back({{"host_cell", cell.host_cell},
                       {"pinned_cpus", to_cpu_list(cell.pinned_cpus)},
                       {"reserved_cpus", to_cpu_list(cell.reserved_cpus)},
                       {"shared_vcpus", cell.shared_vcpus},
                       {"memory_kib", cell.memory_kib},
                       {"pages", pages}});
    }
    out.push_back({{"name", claim.name},
                   {"uuid", claim.uuid},
                   {"running", claim.running},
                   {"placed_by_numaplace", claim.placed_by_numaplace},
                   {"cells", cells},
                   {"unbound_memory_kib", claim.unbound_memory_kib},
                   {"unbound_vcpus", claim.unbound_vcpus},
                   {"pci_devices", claim.pci_devices}});
  }
  return out;
}

nlohmann::json to_json(const DefaultPlacement& confinement) {
  nlohmann::json resources = nlohmann::json::array();
  for (const auto& resource : confinement.resources) {
    nlohmann::json hints = nlohmann::json();
    if (resource.hints) {
      hints = nlohmann::json::array();
      for (const auto& hint : *resource.hints) {
        hints.push_back({{"cells", hint.affinity ? nlohmann::json(hint.affinity->nodes()) : nlohmann::json()},
                         {"preferred", hint.preferred}});
      }
    }
    resources.push_back({{"resource", resource.resource}, {"hints", hints}});
  }
  return {{"cells", confinement.cells ? nlohmann::json(confinement.cells->nodes()) : nlohmann::json()},
          {"cpus", to_cpu_list(confinement.cpus)},
          {"preferred", confinement.preferred},
          {"reason", confinement.reason},
          {"resources", resources}};
}

}  // namespace numaplace::cli

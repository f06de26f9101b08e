#include "placement/claims.h"

#include <algorithm>

namespace numaplace {

std::vector<std::string> apply_claims(HostTopology& host, const std::vector<GuestClaim>& claims) {
  std::vector<std::string> foreign;
  for (const auto& claim : claims) {
    bool all_known = true;
    for (const auto& cell_claim : claim.cells) {
      auto it = std::find_if(host.cells.begin(), host.cells.end(),
                             [&](const HostCell& c) { return c.id == cell_claim.host_cell; });
      if (it == host.cells.end()) {
        all_known = false;
        continue;
      }
      HostCell& cell = *it;
      cell.usage.pinned_cpus = cell.usage.pinned_cpus.united(cell_claim.pinned_cpus);
      cell.usage.shared_cpus += cell_claim.shared_vcpus;
      cell.usage.memory_kib += cell_claim.memory_kib;
      for (const auto& [size, count] : cell_claim.pages) {
        for (auto& pool : cell.pages) {
          if (pool.size_kib == size) pool.used += count;
        }
      }
    }
    if (!all_known) foreign.push_back(claim.name);
  }
  return foreign;
}

std::vector<std::pair<std::uint32_t, std::string>> pinning_collisions(const GuestClaim& candidate,
                                                                       const std::vector<GuestClaim>& others) {
  std::vector<std::pair<std::uint32_t, std::string>> out;
  CpuSet mine;
  for (const auto& cell : candidate.cells) mine = mine.united(cell.pinned_cpus);
  for (const auto& other : others) {
    if ((!candidate.uuid.empty() && other.uuid == candidate.uuid) || other.name == candidate.name) continue;
    for (const auto& cell : other.cells) {
      for (std::uint32_t cpu : mine.intersected(cell.pinned_cpus)) out.emplace_back(cpu, other.name);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace numaplace

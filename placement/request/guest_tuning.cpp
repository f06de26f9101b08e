// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/request/guest_tuning.h"

#include <utility>
#include <vector>

#include "placement/request/spec_values.h"

namespace numaplace {
namespace {

// hw:locked_memory, else hw_locked_memory, for a request derive_guest_topology accepted (so the
// two agree when both are given). A guest without a NUMA topology may still lock its memory: a
// page size of "0" asks for no topology but is a page size given.
bool asks_locked_memory(const GuestRequest& request) {
  for (const auto& [map, key] : {std::pair{&request.flavor_specs, "hw:locked_memory"},
                                 std::pair{&request.image_props, "hw_locked_memory"}}) {
    if (auto it = map->find(key); it != map->end()) return bool_from_string(it->second);
  }
  return false;
}

}  // namespace

Result<GuestTuning> derive_guest_tuning(const GuestRequest& request, const std::optional<GuestTopology>& topology) {
  GuestTuning tuning;
  if (topology) {
    tuning.realtime_vcpus = topology->realtime_cpus;
    // A realtime vCPU must never wait on a page fault: Nova locks a realtime guest's memory.
    tuning.locked_memory = topology->locked_memory || !topology->realtime_cpus.empty();
    tuning.no_shared_pages = !topology->realtime_cpus.empty();
  } else {
    tuning.locked_memory = asks_locked_memory(request);
  }
  auto wish = read_cpu_topology_request(request);
  if (!wish) return wish.error();
  if (*wish) {
    std::vector<CpuSet> cells;
    if (topology) {
      for (const auto& cell : topology->cells) cells.push_back(cell.cpus);
    }
    auto chosen = best_cpu_topology(request.vcpus, **wish, cells);
    if (!chosen) return chosen.error();
    tuning.cpu_topology = *chosen;
  }
  return tuning;
}

}  // namespace numaplace

// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/fit/cell_score.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "placement/scoring/least_allocated.h"
#include "placement/scoring/most_allocated.h"

namespace numaplace {
namespace {

int percent(std::int64_t used, std::int64_t capacity) {
  if (capacity <= 0) return 0;
  return static_cast<int>(std::min<std::int64_t>(used, capacity) * 100 / capacity);
}

}  // namespace

int CellLoad::cpu_percent() const { return percent(cpu_used_milli, cpu_capacity_milli); }
int CellLoad::memory_percent() const { return percent(memory_used_kib, memory_capacity_kib); }

CellLoad cell_load_after(const HostTopology& host, const HostCell& cell, const GuestTopology& guest,
                         const GuestCell& guest_cell, std::uint64_t pagesize_kib, bool reserve_emulator) {
  CellLoad load;
  // Every CPU of the cell: its CPUs, which hold the shared and dedicated sets on every host read
  // so far (then no set is built), else the union of the three.
  const bool within_cpus =
      cell.shared_cpus.count_minus(cell.cpus) == 0 && cell.dedicated_cpus.count_minus(cell.cpus) == 0;
  const std::size_t all_cpus =
      within_cpus ? cell.cpus.size() : cell.cpus.united(cell.shared_cpus).united(cell.dedicated_cpus).size();
  const double ratio = host.ratio.cpu > 0 ? host.ratio.cpu : 1.0;
  const bool pinned_policy = guest.cpu_policy == CpuPolicy::Dedicated || guest.cpu_policy == CpuPolicy::Mixed;
  const std::size_t dedicated = pinned_policy ? guest_cell.dedicated_cpus.size() + (reserve_emulator ? 1 : 0) : 0;
  const std::size_t floating = guest_cell.cpus.size() - (pinned_policy ? guest_cell.dedicated_cpus.size() : 0);
  load.cpu_capacity_milli = static_cast<std::int64_t>(all_cpus) * 1000;
  const double used = static_cast<double>(cell.usage.pinned_cpus.size() + dedicated) +
                      (cell.usage.shared_cpus + static_cast<double>(floating)) / ratio;
  load.cpu_used_milli = static_cast<std::int64_t>(std::llround(used * 1000.0));

  const PagePool* pool = nullptr;
  if (pagesize_kib > 4) {
    for (const auto& p : cell.pages) pool = p.size_kib == pagesize_kib ? &p : pool;
  }
  if (pool != nullptr) {
    load.memory_capacity_kib = static_cast<std::int64_t>(pool->total * pool->size_kib);
    load.memory_used_kib =
        static_cast<std::int64_t>((pool->used + pool->reserved) * pool->size_kib + guest_cell.memory_kib);
  } else {
    const bool overcommit = !pinned_policy && cell.usage.pinned_cpus.empty();
    const double capacity = static_cast<double>(cell.memory_kib) * (overcommit ? host.ratio.ram : 1.0);
    load.memory_capacity_kib = static_cast<std::int64_t>(capacity);
    load.memory_used_kib = static_cast<std::int64_t>(cell.usage.memory_kib + guest_cell.memory_kib);
  }
  return load;
}

std::int64_t score_cell_load(const CellLoad& load, Strategy strategy, const scoring::UtilizationShape* shape,
                             const ResourceWeights& weights) {
  thread_local std::vector<scoring::ResourceLoad> loads;  // reused: this runs for every pair of every fit
  loads.clear();
  if (weights.cpu > 0 && load.cpu_capacity_milli > 0) {
    loads.push_back({"cpu", weights.cpu, load.cpu_used_milli, load.cpu_capacity_milli});
  }
  if (weights.memory > 0 && load.memory_capacity_kib > 0) {
    loads.push_back({"memory", weights.memory, load.memory_used_kib, load.memory_capacity_kib});
  }
  switch (strategy) {
    case Strategy::Nova: return 0;
    case Strategy::Spread: return scoring::least_allocated_score(loads);
    case Strategy::Pack: return scoring::most_allocated_score(loads);
    case Strategy::Ratio: return shape != nullptr ? scoring::requested_to_capacity_ratio_score(*shape, loads) : 0;
    case Strategy::Adaptive: break;  // resolved per host by cell_scoring_strategy before scoring
  }
  return 0;
}

}  // namespace numaplace

// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/lifecycle/admission.h"

#include <string>
#include <utility>

#include "placement/fit/cpu_pinning.h"

namespace numaplace {
namespace {

CpuSet held_pcpus(const HostCell& cell, const GuestTopology& guest, const CellPlacement& placed) {
  CpuSet held = placed.cpuset_reserved;
  for (const auto& [vcpu, pcpu] : placed.pinning) held.insert(pcpu);
  if (guest.thread_policy != ThreadPolicy::Isolate) return held;
  CpuSet cores;
  for (const auto& core : sibling_groups(cell)) {
    if (core.intersects(held)) cores = cores.united(core);
  }
  return held.united(cores);
}

PagePool* drawn_pool(HostCell& cell, std::int64_t pagesize_kib) {
  if (cell.pages.empty()) return nullptr;
  if (pagesize_kib <= 0) return &cell.pages.front();
  for (auto& pool : cell.pages) {
    if (pool.size_kib == static_cast<std::uint64_t>(pagesize_kib)) return &pool;
  }
  return nullptr;
}

}  // namespace

Status admit_placement(HostTopology& host, const GuestTopology& guest, const Placement& placement) {
  HostTopology next = host;
  for (const auto& placed : placement.cells) {
    HostCell* cell = nullptr;
    for (auto& candidate : next.cells) {
      if (candidate.id == placed.host_cell) cell = &candidate;
    }
    if (cell == nullptr) {
      return make_error("UnknownHostCell", "the placement names host cell " + std::to_string(placed.host_cell) +
                                               ", which this host does not have");
    }
    const CpuSet pinned = held_pcpus(*cell, guest, placed);
    if (const CpuSet taken = pinned.intersected(cell->usage.pinned_cpus); !taken.empty()) {
      return make_error("PinningCollision", "pCPUs " + to_cpu_list(taken) + " of host cell " +
                                                std::to_string(cell->id) + " are already pinned by another guest");
    }
    cell->usage.pinned_cpus = cell->usage.pinned_cpus.united(pinned);
    cell->usage.shared_cpus += static_cast<double>(placed.guest_cpus.size() - placed.pinning.size());
    cell->usage.memory_kib += placed.memory_kib;
    if (PagePool* pool = drawn_pool(*cell, placed.pagesize_kib); pool != nullptr && pool->size_kib > 0) {
      pool->used += placed.memory_kib / pool->size_kib;
    } else if (placed.pagesize_kib > 0) {
      return make_error("UnknownPageSize", "host cell " + std::to_string(cell->id) + " has no " +
                                               std::to_string(placed.pagesize_kib) + " KiB pages");
    }
  }
  host = std::move(next);
  return Done{};
}

}  // namespace numaplace

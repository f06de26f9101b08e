// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/host_topology.h"

#include <algorithm>
#include <utility>

namespace numaplace {

std::optional<std::uint64_t> sort_page_pools(std::vector<PagePool>& pages) {
  std::sort(pages.begin(), pages.end(), [](const PagePool& a, const PagePool& b) { return a.size_kib < b.size_kib; });
  const auto twice = std::adjacent_find(pages.begin(), pages.end(),
                                        [](const PagePool& a, const PagePool& b) { return a.size_kib == b.size_kib; });
  if (twice == pages.end()) return std::nullopt;
  return twice->size_kib;
}

namespace {

// Every CPU `cell` names: its CPUs, its sibling groups (which may hold threads the host keeps
// out of the cell's CPU sets) and its pins.
CpuSet named_cpus(const HostCell& cell) {
  CpuSet named = cell.cpus.united(cell.usage.pinned_cpus);
  for (const CpuSet& group : cell.siblings) named.unite_with(group);
  return named;
}

// The first of `cell`'s sibling groups that holds `cpu`, or an empty set.
CpuSet first_group_of(const HostCell& cell, std::uint32_t cpu) {
  for (const CpuSet& group : cell.siblings) {
    if (group.contains(cpu)) return group;
  }
  return {};
}

// Where `cell` names `cpu`: "cpus", "sibling group 4-5" or "pinned cpus".
std::string role_of(const HostCell& cell, std::uint32_t cpu) {
  if (cell.cpus.contains(cpu)) return "cpus";
  if (const CpuSet group = first_group_of(cell, cpu); !group.empty()) return "sibling group " + to_cpu_list(group);
  return "pinned cpus";
}

}  // namespace

std::optional<std::string> cell_cpu_problem(const HostTopology& host) {
  CpuSet seen;
  for (std::size_t i = 0; i < host.cells.size(); ++i) {
    const HostCell& cell = host.cells[i];
    CpuSet grouped;
    for (const CpuSet& group : cell.siblings) {
      if (group.intersects(grouped)) {
        const std::uint32_t cpu = group.intersected(grouped).first();
        return "cell " + std::to_string(cell.id) + ": cpu " + std::to_string(cpu) + " is in two sibling groups (" +
               to_cpu_list(first_group_of(cell, cpu)) + " and " + to_cpu_list(group) + "); a CPU is a thread of one core";
      }
      grouped.unite_with(group);
    }
    const CpuSet named = named_cpus(cell);
    if (named.intersects(seen)) {
      for (std::size_t j = 0; j < i; ++j) {
        const CpuSet both = named.intersected(named_cpus(host.cells[j]));
        if (both.empty()) continue;
        const std::uint32_t cpu = both.first();
        return "cell " + std::to_string(cell.id) + ": cpu " + std::to_string(cpu) + " (in its " + role_of(cell, cpu) +
               ") is also in cell " + std::to_string(host.cells[j].id) + " (in its " + role_of(host.cells[j], cpu) +
               "); a CPU belongs to one NUMA cell";
      }
    }
    seen.unite_with(named);
  }
  return std::nullopt;
}

std::string cell_id_list(const HostTopology& host) {
  CpuSet ids;
  for (const auto& cell : host.cells) ids.insert(cell.id);
  return to_cpu_list(ids);
}

std::optional<std::uint32_t> cell_of_cpu(const HostTopology& host, std::uint32_t cpu) {
  for (const auto& cell : host.cells) {
    if (cell.cpus.contains(cpu)) return cell.id;
  }
  return std::nullopt;
}

void assign_cache_domains(HostTopology& host, const std::vector<CpuSet>& l3_caches) {
  for (auto& cell : host.cells) {
    std::vector<CpuSet> domains;
    for (const auto& cache : l3_caches) {
      CpuSet part = cache.intersected(cell.cpus);
      if (!part.empty() && std::find(domains.begin(), domains.end(), part) == domains.end()) domains.push_back(part);
    }
    std::sort(domains.begin(), domains.end(), [](const CpuSet& a, const CpuSet& b) { return a.first() < b.first(); });
    cell.cache_domains = domains.size() > 1 ? std::move(domains) : std::vector<CpuSet>{};
  }
}

const HostCell* HostTopology::find_cell(std::uint32_t id) const {
  for (const auto& cell : cells) {
    if (cell.id == id) return &cell;
  }
  return nullptr;
}

std::optional<std::uint32_t> HostTopology::distance(std::uint32_t from_id, std::uint32_t to_id) const {
  const HostCell* from = find_cell(from_id);
  if (from != nullptr) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (cells[i].id == to_id && i < from->distances.size()) return from->distances[i];
    }
  }
  return std::nullopt;
}

PagePool* smallest_pool(HostCell& cell) {
  // The const form's pool is one of `cell`'s own, which the caller may change.
  return const_cast<PagePool*>(smallest_pool(std::as_const(cell)));
}

const PagePool* smallest_pool(const HostCell& cell) {
  const PagePool* smallest = nullptr;
  for (const auto& pool : cell.pages) {
    if (smallest == nullptr || pool.size_kib < smallest->size_kib) smallest = &pool;
  }
  return smallest;
}

std::uint64_t small_page_kib(const HostCell& cell) { return small_page_kib(cell, smallest_pool(cell)); }

std::uint64_t small_page_kib(const HostCell& cell, const PagePool* smallest) {
  return smallest != nullptr ? std::min(smallest->total * smallest->size_kib, cell.memory_kib) : cell.memory_kib;
}

CpuSet floating_cpus_of(const HostTopology& host, const HostCell& cell) {
  if (host.accounting == Accounting::Nova) return cell.shared_cpus;
  return cell.shared_cpus.minus(cell.usage.pinned_cpus);
}

}  // namespace numaplace

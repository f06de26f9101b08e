// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/host_config.h"

#include <cmath>


namespace numaplace {
namespace {

Error invalid(const HostConfig& config, const std::string& sentence) {
  return make_error("InvalidHostConfig", config.source + ": " + sentence);
}

HostCell* cell_of(HostTopology& host, std::uint32_t id) {
  for (auto& cell : host.cells) {
    if (cell.id == id) return &cell;
  }
  return nullptr;
}

}  // namespace

Status apply_host_config(HostTopology& host, const HostConfig& config) {
  CpuSet online;
  for (const auto& cell : host.cells) online = online.united(cell.cpus);
  const auto check_cpus = [&](const std::optional<CpuSet>& set, const char* key) -> Status {
    if (set && !set->is_subset_of(online)) {
      return invalid(config, std::string(key) + " names CPUs " + to_cpu_list(set->minus(online)) +
                                 ", which this host does not have (its CPUs are " + to_cpu_list(online) + ")");
    }
    return Done{};
  };
  for (const auto& [set, key] : {std::pair{&config.cpu_dedicated_set, "cpu_dedicated_set"},
                                 std::pair{&config.cpu_shared_set, "cpu_shared_set"}}) {
    if (auto checked = check_cpus(*set, key); !checked) return checked;
  }
  if (auto checked = check_cpus(config.reserved_cpus, "reserved_cpus"); !checked) return checked;
  if (config.cpu_dedicated_set && config.cpu_shared_set && config.cpu_dedicated_set->intersects(*config.cpu_shared_set)) {
    return invalid(config, "cpu_dedicated_set and cpu_shared_set share CPUs " +
                               to_cpu_list(config.cpu_dedicated_set->intersected(*config.cpu_shared_set)) +
                               "; a CPU is either for dedicated guests or for floating ones");
  }
  for (const auto& [ratio, key] : {std::pair{&config.cpu_allocation_ratio, "cpu_allocation_ratio"},
                                   std::pair{&config.ram_allocation_ratio, "ram_allocation_ratio"}}) {
    if (*ratio && !(std::isfinite(**ratio) && **ratio > 0)) {
      return invalid(config, std::string(key) + " must be a number above 0 (Nova's default: " +
                                 (std::string(key) == "cpu_allocation_ratio" ? "16.0" : "1.5") + ")");
    }
  }

  HostTopology changed = host;
  for (auto& cell : changed.cells) {
    // Nova's rules: neither set is the legacy overlap; one set alone leaves the other kind none.
    CpuSet shared = cell.shared_cpus;
    CpuSet dedicated = cell.dedicated_cpus;
    if (config.cpu_shared_set || config.cpu_dedicated_set) {
      shared = config.cpu_shared_set ? cell.cpus.intersected(*config.cpu_shared_set) : CpuSet{};
      dedicated = config.cpu_dedicated_set ? cell.cpus.intersected(*config.cpu_dedicated_set) : CpuSet{};
    }
    cell.shared_cpus = shared.minus(config.reserved_cpus);
    cell.dedicated_cpus = dedicated.minus(config.reserved_cpus);
  }
  for (const auto& reserve : config.reserved_huge_pages) {
    HostCell* cell = cell_of(changed, reserve.node);
    if (cell == nullptr) {
      return invalid(config, "reserved_huge_pages names node " + std::to_string(reserve.node) +
                                 ", which this host does not have (its nodes are " + cell_id_list(host) + ")");
    }
    PagePool* pool = nullptr;
    for (auto& p : cell->pages) pool = p.size_kib == reserve.size_kib ? &p : pool;
    if (pool == nullptr || pool->total < reserve.count) {
      return invalid(config, "reserved_huge_pages reserves " + std::to_string(reserve.count) + " pages of " +
                                 std::to_string(reserve.size_kib) + " KiB on node " + std::to_string(reserve.node) +
                                 ", which has " + std::to_string(pool == nullptr ? 0 : pool->total) +
                                 " such pages");
    }
    pool->reserved = reserve.count;
  }
  for (const auto& reserve : config.reserved_memory) {
    HostCell* cell = cell_of(changed, reserve.node);
    if (cell == nullptr) {
      return invalid(config, "reserved_memory names node " + std::to_string(reserve.node) +
                                 ", which this host does not have (its nodes are " + cell_id_list(host) + ")");
    }
    if (reserve.kib > cell->memory_kib) {
      return invalid(config, "reserved_memory keeps " + std::to_string(reserve.kib / 1024) + " MiB of node " +
                                 std::to_string(reserve.node) + ", which has " +
                                 std::to_string(cell->memory_kib / 1024) + " MiB");
    }
    cell->usage.memory_kib += reserve.kib;  // the host holds it as a guest would
    if (PagePool* smallest = smallest_pool(*cell); smallest != nullptr && smallest->size_kib > 0) {
      smallest->reserved += (reserve.kib + smallest->size_kib - 1) / smallest->size_kib;
    }
  }
  if (config.cpu_allocation_ratio) changed.ratio.cpu = *config.cpu_allocation_ratio;
  if (config.ram_allocation_ratio) changed.ratio.ram = *config.ram_allocation_ratio;
  if (config.cpu_allocation_ratio || config.ram_allocation_ratio) changed.ratio.enforced = true;
  if (config.accounting) changed.accounting = *config.accounting;
  host = std::move(changed);
  return Done{};
}

}  // namespace numaplace

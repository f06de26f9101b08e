// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/lifecycle/audit.h"

#include <algorithm>
#include <map>
#include <set>

namespace numaplace {
namespace {

using Guests = std::vector<std::string>;

std::string quoted_list(const Guests& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
    out += "'" + names[i] + "'";
  }
  return out;
}

// "cell 1", "cells 0,2".
std::string cells_text(const std::set<std::uint32_t>& cells) {
  std::string out;
  for (auto cell : cells) out += (out.empty() ? "" : ",") + std::to_string(cell);
  return (cells.size() == 1 ? "cell " : "cells ") + out;
}

std::set<std::uint32_t> cells_of(const HostTopology& host, const CpuSet& cpus) {
  std::set<std::uint32_t> cells;
  for (auto cpu : cpus) {
    if (auto cell = cell_of_cpu(host, cpu)) cells.insert(*cell);
  }
  return cells;
}

// The cell a set of pCPUs lies in, when it lies in exactly one.
std::optional<std::uint32_t> single_cell(const HostTopology& host, const CpuSet& cpus) {
  auto cells = cells_of(host, cpus);
  if (cells.size() != 1) return std::nullopt;
  return *cells.begin();
}

std::string cpus_text(const CpuSet& cpus) { return (cpus.size() == 1 ? "pCPU " : "pCPUs ") + to_cpu_list(cpus); }

// The cells where the guest binds memory (small or huge pages).
std::set<std::uint32_t> memory_cells(const GuestClaim& guest) {
  std::set<std::uint32_t> cells;
  for (const auto& cell : guest.cells) {
    bool pages = false;
    for (const auto& [size, count] : cell.pages) pages = pages || count > 0;
    if (cell.memory_kib > 0 || pages) cells.insert(cell.host_cell);
  }
  return cells;
}

void pcpus_held_twice(const HostTopology& host, const std::vector<GuestClaim>& guests,
                      std::vector<AuditFinding>& out) {
  std::map<std::uint32_t, Guests> holders;
  for (const auto& guest : guests) {
    for (auto cpu : guest.held_cpus()) holders[cpu].push_back(guest.name);
  }
  std::map<Guests, CpuSet> shared;  // the same holders over several pCPUs make one finding
  for (const auto& [cpu, names] : holders) {
    if (names.size() > 1) shared[names].insert(cpu);
  }
  for (const auto& [names, cpus] : shared) {
    out.push_back({FindingKind::PcpuHeldTwice, names, cpus_text(cpus), single_cell(host, cpus), cpus,
                   cpus_text(cpus) + " " + (cpus.size() == 1 ? "is" : "are") + " held by " + quoted_list(names) +
                       " at once: their pinned vCPUs compete for the same hardware threads",
                   "place all but one of them again for this host (stop it, then 'numaplace start " + names.back() +
                       "' places it afresh)"});
  }
}

void floats_over_held(const HostTopology& host, const std::vector<GuestClaim>& guests,
                      std::vector<AuditFinding>& out) {
  for (const auto& holder : guests) {
    const CpuSet held = holder.held_cpus();
    if (held.empty()) continue;
    for (const auto& other : guests) {
      if (&other == &holder) continue;
      const CpuSet own = other.held_cpus();
      CpuSet over;
      std::vector<std::string> threads;
      for (const auto& thread : other.threads) {
        // A thread confined to pCPUs its own guest holds is a pin: PcpuHeldTwice says that.
        if (!thread.cpus.empty() && thread.cpus.is_subset_of(own)) continue;
        const CpuSet shared = thread.cpus.intersected(held);
        if (shared.empty()) continue;
        over = over.united(shared);
        threads.push_back(describe(thread));
      }
      if (over.empty()) continue;
      std::string which;
      for (std::size_t i = 0; i < threads.size() && i < 4; ++i) which += (i ? ", " : "") + threads[i];
      if (threads.size() > 4) which += " and " + std::to_string(threads.size() - 4) + " more";
      out.push_back({FindingKind::FloatsOverHeldPcpu, {other.name, holder.name}, cpus_text(over),
                     single_cell(host, over), over,
                     "threads of '" + other.name + "' (" + which + ") may run on " + cpus_text(over) + ", which '" +
                         holder.name + "' holds for its dedicated vCPUs: it loses its isolation",
                     "pin them outside " + to_cpu_list(held) + " ('virsh vcpupin', 'virsh emulatorpin', "
                         "'virsh iothreadpin' '" + other.name + "' with --live --config); numaplace define and "
                         "start do so themselves when they place a dedicated guest"});
    }
  }
}

void memory_beyond_cells(const HostTopology& host, const std::vector<GuestClaim>& guests,
                         std::vector<AuditFinding>& out) {
  // Exclusive accounting (real hosts): small-page memory bound strictly to a cell comes from its
  // small pages, out of which the huge page pools are carved; Nova's model counts the cell's memory
  // and lets the allocation ratio overcommit it.
  const bool overcommit = host.accounting == Accounting::Nova && host.ratio.enforced;
  for (const auto& cell : host.cells) {
    const std::uint64_t capacity = host.accounting == Accounting::Exclusive ? small_page_kib(cell) : cell.memory_kib;
    const std::string capacity_text = std::to_string(capacity / 1024) + " MiB" +
                                      (capacity != cell.memory_kib ? " of small pages" : std::string()) + " in all";
    std::uint64_t bound = 0;
    Guests names;
    std::map<std::uint64_t, std::pair<std::uint64_t, Guests>> pages;  // size -> pages bound, by whom
    for (const auto& guest : guests) {
      for (const auto& claim : guest.cells) {
        if (claim.host_cell != cell.id) continue;
        if (claim.memory_kib > 0) {
          bound += claim.memory_kib;
          names.push_back(guest.name);
          if (claim.memory_kib > capacity) {
            out.push_back({FindingKind::MemoryExceedsCell, {guest.name}, "memory of cell " + std::to_string(cell.id),
                           cell.id, {},
                           "'" + guest.name + "' binds " + std::to_string(claim.memory_kib / 1024) +
                               " MiB to cell " + std::to_string(cell.id) + ", which has " + capacity_text,
                           "place '" + guest.name + "' again over more cells (hw:numa_nodes) or on a larger cell"});
          }
        }
        for (const auto& [size, count] : claim.pages) {
          if (count == 0) continue;
          pages[size].first += count;
          pages[size].second.push_back(guest.name);
        }
      }
    }
    const double ratio = overcommit ? std::max(host.ratio.ram, 1.0) : 1.0;
    const auto limit = static_cast<std::uint64_t>(static_cast<double>(capacity) * ratio);
    const std::uint64_t kept = cell.usage.memory_kib;  // what the host keeps for itself
    if (names.size() > 1 && bound + kept > limit) {
      out.push_back({FindingKind::CellMemoryOvercommitted, names, "memory of cell " + std::to_string(cell.id), cell.id, {},
                     quoted_list(names) + " bind " + std::to_string(bound / 1024) + " MiB to cell " +
                         std::to_string(cell.id) + ", beyond the " + std::to_string(limit / 1024) +
                         " MiB it may hold" + (kept > 0 ? " (" + std::to_string(kept / 1024) + " MiB kept by the host)" : "") +
                         ": the kernel will refuse or reclaim their pages",
                     "place one of them again elsewhere (numaplace start after stopping it)"});
    }
    for (const auto& [size, bound_pages] : pages) {
      std::uint64_t available = 0;
      for (const auto& pool : cell.pages) {
        if (pool.size_kib == size) available = pool.total > pool.reserved + pool.used ? pool.total - pool.reserved - pool.used : 0;
      }
      if (bound_pages.first <= available) continue;
      out.push_back({FindingKind::HugePagesOvercommitted, bound_pages.second,
                     std::to_string(size) + " KiB pages of cell " + std::to_string(cell.id), cell.id, {},
                     quoted_list(bound_pages.second) + " bind " + std::to_string(bound_pages.first) + " pages of " +
                         std::to_string(size) + " KiB to cell " + std::to_string(cell.id) + ", which has " +
                         std::to_string(available) + " free for guests",
                     "reserve more pages of that size on the cell (nr_hugepages) or place one of them again"});
    }
  }
}

void vcpus_away_from_memory(const HostTopology& host, const std::vector<GuestClaim>& guests,
                            std::vector<AuditFinding>& out) {
  for (const auto& guest : guests) {
    const auto memory = memory_cells(guest);
    if (memory.empty()) continue;
    CpuSet away_vcpus;  // vCPU ids, written as a list
    std::set<std::uint32_t> away_cells;
    for (const auto& thread : guest.threads) {
      if (thread.kind != ThreadAffinity::Kind::Vcpu) continue;
      const auto cells = cells_of(host, thread.cpus);
      if (cells.empty()) continue;
      if (std::none_of(cells.begin(), cells.end(), [&](std::uint32_t c) { return memory.count(c) > 0; })) {
        away_vcpus.insert(thread.id);
        away_cells.insert(cells.begin(), cells.end());
      }
    }
    if (away_vcpus.empty()) continue;
    out.push_back({FindingKind::VcpusAwayFromMemory, {guest.name},
                   "vCPUs " + to_cpu_list(away_vcpus),
                   away_cells.size() == 1 ? std::optional<std::uint32_t>(*away_cells.begin()) : std::nullopt, {},
                   "vCPUs " + to_cpu_list(away_vcpus) + " of '" + guest.name + "' run only on " +
                       cells_text(away_cells) + " while its memory is bound to " + cells_text(memory) +
                       ": every access they make is remote",
                   "place '" + guest.name + "' again so that each guest cell's vCPUs and memory share a host cell"});
  }
}

void devices(const HostTopology& host, const std::vector<GuestClaim>& guests, std::vector<AuditFinding>& out) {
  std::map<std::string, Guests> holders;
  for (const auto& guest : guests) {
    for (const auto& address : guest.pci_devices) {
      auto& names = holders[address];
      if (std::find(names.begin(), names.end(), guest.name) == names.end()) names.push_back(guest.name);
    }
  }
  for (const auto& [address, names] : holders) {
    if (names.size() < 2) continue;
    std::optional<std::uint32_t> node;
    for (const auto& dev : host.pci) {
      if (dev.address == address) node = dev.numa_node;
    }
    out.push_back({FindingKind::DeviceHeldTwice, names, "PCI " + address, node, {},
                   "PCI device " + address + " is passed through to " + quoted_list(names) +
                       ": only one of them can start with it",
                   "give all but one of them another device (numaplace place --pci) or remove it from their XML"});
  }
  for (const auto& guest : guests) {
    std::set<std::uint32_t> local = memory_cells(guest);
    for (const auto& thread : guest.threads) {
      if (thread.kind != ThreadAffinity::Kind::Vcpu) continue;
      const auto cells = cells_of(host, thread.cpus);
      local.insert(cells.begin(), cells.end());
    }
    if (local.empty()) continue;
    for (const auto& address : guest.pci_devices) {
      for (const auto& dev : host.pci) {
        if (dev.address != address || !dev.numa_node || local.count(*dev.numa_node) > 0) continue;
        out.push_back({FindingKind::RemoteDevice, {guest.name}, "PCI " + address, dev.numa_node, {},
                       "PCI device " + address + " of '" + guest.name + "' is on cell " +
                           std::to_string(*dev.numa_node) + ", where the guest has neither vCPUs nor memory (it has " +
                           cells_text(local) + "): its DMA and interrupts cross the interconnect",
                       "place '" + guest.name + "' again with the device (hw:pci_numa_affinity_policy=required keeps them "
                       "together)"});
      }
    }
  }
}

}  // namespace

const char* finding_name(FindingKind kind) {
  switch (kind) {
    case FindingKind::PcpuHeldTwice: return "PcpuHeldTwice";
    case FindingKind::FloatsOverHeldPcpu: return "FloatsOverHeldPcpu";
    case FindingKind::MemoryExceedsCell: return "MemoryExceedsCell";
    case FindingKind::CellMemoryOvercommitted: return "CellMemoryOvercommitted";
    case FindingKind::HugePagesOvercommitted: return "HugePagesOvercommitted";
    case FindingKind::VcpusAwayFromMemory: return "VcpusAwayFromMemory";
    case FindingKind::DeviceHeldTwice: return "DeviceHeldTwice";
    case FindingKind::RemoteDevice: return "RemoteDevice";
  }
  return "Unknown";
}

std::vector<AuditFinding> audit_host(const HostTopology& host, const std::vector<GuestClaim>& guests) {
  std::vector<AuditFinding> out;
  pcpus_held_twice(host, guests, out);
  floats_over_held(host, guests, out);
  memory_beyond_cells(host, guests, out);
  vcpus_away_from_memory(host, guests, out);
  devices(host, guests, out);
  std::stable_sort(out.begin(), out.end(),
                   [](const AuditFinding& a, const AuditFinding& b) { return a.kind < b.kind; });
  return out;
}

}  // namespace numaplace

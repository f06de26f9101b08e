// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/lifecycle/replacement.h"

#include "placement/fit/cell_fit.h"
#include "placement/fit/cpu_pinning.h"

namespace numaplace {
namespace {

const HostCell* cell_by_id(const HostTopology& host, std::uint32_t id) {
  for (const auto& cell : host.cells) {
    if (cell.id == id) return &cell;
  }
  return nullptr;
}

std::string cell_name(const CellPlacement& recorded) {
  return "guest cell " + std::to_string(recorded.guest_cell) + " on host cell " + std::to_string(recorded.host_cell);
}

// Why the recorded pins cannot be kept on `cell`, or nullopt.
std::optional<std::string> pin_problem(const HostCell& cell, const GuestTopology& guest, const CellPlacement& recorded) {
  CpuSet held = recorded.cpuset_reserved;
  for (const auto& [vcpu, pcpu] : recorded.pinning) held.insert(pcpu);
  if (!held.is_subset_of(cell.dedicated_cpus)) {
    return "pCPUs " + to_cpu_list(held.minus(cell.dedicated_cpus)) + " are no longer in the cell's dedicated set";
  }
  CpuSet needed = held.united(recorded.isolated_cpus);
  if (guest.thread_policy == ThreadPolicy::Isolate) {
    for (const auto& core : sibling_groups(cell)) {
      if (core.intersects(held)) needed = needed.united(core);
    }
  }
  if (const CpuSet taken = needed.intersected(cell.usage.pinned_cpus); !taken.empty()) {
    return "pCPUs " + to_cpu_list(taken) + " are held by another guest now";
  }
  return std::nullopt;
}

}  // namespace

std::string to_string(ReplacementKind kind) {
  switch (kind) {
    case ReplacementKind::Fresh: return "fresh";
    case ReplacementKind::Kept: return "kept";
    case ReplacementKind::Repinned: return "repinned";
    case ReplacementKind::Moved: return "moved";
  }
  return "fresh";
}

std::optional<std::string> record_mismatch(const GuestTopology& guest, const Placement& recorded) {
  if (recorded.cells.size() != guest.cells.size()) {
    return "the record has " + std::to_string(recorded.cells.size()) + " guest cells, the guest asks for " +
           std::to_string(guest.cells.size());
  }
  for (std::size_t g = 0; g < guest.cells.size(); ++g) {
    const GuestCell& cell = guest.cells[g];
    const CellPlacement& placed = recorded.cells[g];
    if (placed.guest_cell != cell.id || placed.guest_cpus != cell.cpus || placed.memory_kib != cell.memory_kib) {
      return "the record's guest cell " + std::to_string(placed.guest_cell) +
             " differs from the guest's (vCPUs or memory changed)";
    }
    CpuSet pinned;
    for (const auto& [vcpu, pcpu] : placed.pinning) pinned.insert(vcpu);
    if (pinned != cell.dedicated_cpus) {
      return "the record pins vCPUs " + to_cpu_list(pinned) + " of guest cell " + std::to_string(cell.id) +
             ", the guest's dedicated ones are " + to_cpu_list(cell.dedicated_cpus);
    }
    if (reserves_emulator_cpu(guest, cell) != !placed.cpuset_reserved.empty()) {
      return "the record's emulator reservation differs from the guest's emulator threads policy";
    }
  }
  return std::nullopt;
}

std::optional<std::string> recorded_cell_problem(const HostTopology& host, const GuestTopology& guest,
                                                 const GuestCell& guest_cell, const CellPlacement& recorded) {
  const HostCell* cell = cell_by_id(host, recorded.host_cell);
  if (cell == nullptr) return cell_name(recorded) + ": this host has no cell " + std::to_string(recorded.host_cell);
  const CellFit capacity = fit_cell(host, *cell, guest, guest_cell, reserves_emulator_cpu(guest, guest_cell));
  if (!capacity.fits) return cell_name(recorded) + ": " + capacity.reason;
  if (recorded.pagesize_kib > 0) {
    bool holds = false;
    for (const auto& pool : cell->pages) {
      if (pool.size_kib == static_cast<std::uint64_t>(recorded.pagesize_kib)) {
        holds = pool.free() * pool.size_kib >= recorded.memory_kib;
      }
    }
    if (!holds) {
      return cell_name(recorded) + ": not enough free " + std::to_string(recorded.pagesize_kib) + " KiB pages now";
    }
  }
  if (auto problem = pin_problem(*cell, guest, recorded)) return cell_name(recorded) + ": " + *problem;
  return std::nullopt;
}

Replacement place_again(const HostTopology& host, const GuestTopology& guest, const Placement& recorded,
                        const FitOptions& options) {
  Replacement out;
  if (auto mismatch = record_mismatch(guest, recorded)) {
    out.why = *mismatch;
    out.fit = fit_guest(host, guest, options);
    return out;
  }
  // Cells that keep everything, cells that keep their host cell only, and the first that cannot.
  Placement kept = recorded;
  std::string why;
  for (std::size_t g = 0; g < guest.cells.size(); ++g) {
    auto problem = recorded_cell_problem(host, guest, guest.cells[g], recorded.cells[g]);
    if (!problem) continue;
    const HostCell* cell = cell_by_id(host, recorded.cells[g].host_cell);
    CellFit again;
    if (cell != nullptr) {
      again = fit_cell(host, *cell, guest, guest.cells[g], reserves_emulator_cpu(guest, guest.cells[g]),
                       options.strategy == Strategy::Nova ? PinningStyle::NovaOrder : PinningStyle::Compact);
    }
    if (!again.fits) {
      out.kind = ReplacementKind::Moved;
      out.why = *problem;
      out.fit = fit_guest(host, guest, options);
      return out;
    }
    kept.cells[g] = cell_placement(host, *cell, guest.cells[g], again);
    out.repinned.push_back(guest.cells[g].id);
    why += (why.empty() ? "" : "; ") + *problem;
  }
  // Kept cells float where the cell's shared set is now (it may have been changed by the operator).
  std::string refreshed;
  for (std::size_t g = 0; g < guest.cells.size(); ++g) {
    const HostCell* cell = cell_by_id(host, kept.cells[g].host_cell);
    if (cell != nullptr && !guest.cells[g].shared_cpus().empty()) {
      const CpuSet floating = host.accounting == Accounting::Nova
                                  ? cell->shared_cpus
                                  : floating_cpus_of(host, *cell).minus(kept.cells[g].held_cpus());
      // Said, not done silently: the record (perhaps edited by hand) said other CPUs.
      if (floating != kept.cells[g].host_cpus) {
        refreshed += (refreshed.empty() ? "" : "; ") + std::string("guest cell ") + std::to_string(guest.cells[g].id) +
                     " floats on " + to_cpu_list(floating) + ", not the recorded " + to_cpu_list(kept.cells[g].host_cpus);
      }
      kept.cells[g].host_cpus = floating;
    }
  }
  out.kind = out.repinned.empty() ? ReplacementKind::Kept : ReplacementKind::Repinned;
  out.why = why;
  out.refreshed = refreshed;
  out.fit.placement = std::move(kept);
  return out;
}

}  // namespace numaplace

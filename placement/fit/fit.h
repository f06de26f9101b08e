/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Fitting a guest NUMA topology onto host cells. Each guest cell goes to its own
// host cell; a pair fits when the cell's CPUs (shared or pinned), memory (pages)
// fit there given what is already used (cell_fit.h), and the whole assignment must
// also reach the guest's PCI devices under its NUMA policy (pci_pools.h).
// With Strategy::Nova (the default) fit_guest returns the first assignment in Nova's
// order of trying host cells (so results match Nova's), found by an ordered search
// that prunes with a bipartite matching bound (the most devices any completion can
// reach, by a greedy max-weight matching) instead of walking permutations. The scored
// strategies (strategy.h) search the same fit matrix for the best-scoring whole
// assignment, closest host cells first among equals (best_assignment.h), and pin
// dedicated vCPUs compactly (cpu_pinning.h); whether a guest fits never depends on
// the strategy. When nothing fits, every (guest cell, host cell) rejection is
// reported; with FitOptions::explain, FitResult::explanation holds the whole account.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "placement/fit/cell_fit.h"
#include "placement/fit/fit_explanation.h"
#include "placement/request/guest_topology.h"
#include "placement/model/host_topology.h"
#include "placement/scoring/requested_to_capacity_ratio.h"
#include "placement/fit/strategy.h"

namespace numaplace {

// Host cells a guest cell may take (the operator's <numatune> nodesets, operator_constraints.h).
struct HostCellLimit {
  std::optional<std::uint32_t> guest_cell;  // nullopt: every guest cell
  CpuSet host_cells;
  std::string source;                       // the element that says so, for the rejection
};

struct FitOptions {
  // Nova's packing_host_numa_cells_allocation_strategy: try the fullest cells first.
  // Sets Nova's order, which the scored strategies use only to break their last ties.
  bool pack_host_cells = false;
  Strategy strategy = Strategy::Nova;
  // Strategy::Ratio: the (utilization %, score 0..10) shape; an invalid shape fits nothing
  // and says why (validate it first with parse_ratio_shape / make_utilization_shape).
  std::vector<scoring::UtilizationShapePoint> ratio_shape = default_ratio_shape();
  ResourceWeights weights;  // per-resource weights of the scored strategies
  // Return FitResult::explanation; costs one more search per guest cell shape (the runner-up).
  bool explain = false;
  std::vector<HostCellLimit> host_cell_limits;
};

struct CellPlacement {
  std::uint32_t guest_cell = 0;
  std::uint32_t host_cell = 0;      // host cell id
  CpuSet guest_cpus;                // vCPU ids of the guest cell
  CpuSet host_cpus;                 // where the cell's shared vCPUs float (the shared set);
                                    // for an all-dedicated cell, its pinned pCPUs
  std::uint64_t memory_kib = 0;
  std::int64_t pagesize_kib = 0;    // chosen page size; 0: no page size requested
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pinning;  // dedicated vCPU -> pCPU, ascending vCPU
  CpuSet cpuset_reserved;           // pCPUs reserved for emulator threads (guest cell 0 only)
  CpuSet isolated_cpus;             // isolate: sibling threads of its pCPUs, held idle

  // Every pCPU the cell holds for the guest alone: pins, emulator pCPU, isolated siblings.
  CpuSet held_cpus() const;
};

struct Placement {
  std::vector<CellPlacement> cells;

  CpuSet held_cpus() const;  // over all cells
};

// Where the guest's emulator threads run: the pCPUs reserved for them, and where its floating
// vCPUs float; a guest with neither runs them on its pinned pCPUs.
CpuSet emulator_cpus(const Placement& placement);

struct CellRejection {
  std::uint32_t guest_cell = 0;
  std::uint32_t host_cell = 0;
  std::string reason;  // "needs 6 vCPUs, host cell 0 has 4 shared CPUs"
};

struct FitResult {
  std::optional<Placement> placement;
  std::vector<CellRejection> rejections;  // pairs that do not fit on their own
  std::string summary;                    // why nothing fits, when nothing does
  std::size_t assignments_tried = 0;      // partial assignments the ordered search extended
  std::optional<FitExplanation> explanation;  // set when FitOptions::explain asked for it
};

// Why guest cell `guest` cannot go to host cell `host` on its own, or nullopt if it can.
std::optional<std::string> cell_misfit(const HostTopology& host, const HostCell& cell, const GuestTopology& guest,
                                       const GuestCell& guest_cell);

// The placement of one guest cell on `cell` from the cell's fit (cell_fit.h). Its shared vCPUs
// float over floating_cpus_of(host, cell) less its own pins.
CellPlacement cell_placement(const HostTopology& host, const HostCell& cell, const GuestCell& guest_cell,
                             const CellFit& fit);

// Host cell indexes in the order Nova tries them.
std::vector<std::size_t> nova_host_cell_order(const HostTopology& host, const GuestTopology& guest,
                                              const FitOptions& options);

FitResult fit_guest(const HostTopology& host, const GuestTopology& guest, const FitOptions& options = {});

}  // namespace numaplace

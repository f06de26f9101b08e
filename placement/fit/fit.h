/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Fitting a guest NUMA topology onto host cells: each guest cell on a host cell of its
// own where it fits on its own (cell_fit.h), the whole assignment reaching the guest's PCI
// devices (pci_pools.h). Nova's strategy takes Nova's first fitting assignment
// (assignment_bounds.h), the scored ones the best-scoring (best_assignment.h); whether a
// guest fits never depends on the strategy.
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

// How fit_guest chooses among the assignments that fit, and what it reports.
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
  // false: the verdict and placement only, FitResult::rejections left empty and no pair's reason
  // written (a caller that asks thousands of hosts for verdicts, np_fit_packed_hosts). The
  // placement is the same either way (FitReasonsProperty).
  bool reasons = true;
  std::vector<HostCellLimit> host_cell_limits;
};

// Where one guest cell went: its host cell, memory, page size and pCPUs.
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

// Every guest cell's placement, in guest cell order.
struct Placement {
  std::vector<CellPlacement> cells;

  CpuSet held_cpus() const;  // over all cells
};

// Where the guest's emulator threads run: the pCPUs reserved for them alone (isolate, as Nova pins
// them, a mixed guest's too), else where its floating vCPUs float; a guest with neither runs them
// on its pinned pCPUs. With realtime vCPUs and no
// reserved pCPU, only the pCPUs of the other vCPUs (their pins, where they float): empty when
// every vCPU is realtime (hw:emulator_threads_policy=share; the caller chooses the host's).
CpuSet emulator_cpus(const Placement& placement, const CpuSet& realtime_vcpus = {});

// emulator_cpus, and where that leaves nothing (every vCPU realtime and no pCPU reserved) the
// floating CPUs of the guest's host cells less what the guest holds, as Nova puts them on the
// host's shared CPUs; empty only when those cells have none left.
CpuSet emulator_cpus(const HostTopology& host, const Placement& placement, const CpuSet& realtime_vcpus);

// One (guest cell, host cell) pair that does not fit on its own, and why.
struct CellRejection {
  std::uint32_t guest_cell = 0;
  std::uint32_t host_cell = 0;
  std::string reason;  // "needs 6 vCPUs, host cell 0 has 4 shared CPUs"
};

// A placement when the guest fits; otherwise the summary says why nothing does.
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
// The same, taking the fit's pinning rather than copying it.
CellPlacement cell_placement(const HostTopology& host, const HostCell& cell, const GuestCell& guest_cell,
                             CellFit&& fit);

// Host cell indexes in the order Nova tries them.
std::vector<std::size_t> nova_host_cell_order(const HostTopology& host, const GuestTopology& guest,
                                              const FitOptions& options);

// The guest's placement on `host` under `options`; every pair that does not fit is a rejection
// either way. Nova: the first assignment in nova_host_cell_order (Nova's answer); a scored
// strategy: the best-scoring one (best_assignment.h), its dedicated vCPUs pinned compactly.
FitResult fit_guest(const HostTopology& host, const GuestTopology& guest, const FitOptions& options = {});

}  // namespace numaplace

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// How full one host cell would be with one guest cell added, and what a strategy
// (strategy.h) scores that. CPU is counted in milli-pCPUs over every CPU of the cell:
// pinned pCPUs count whole, floating vCPU load counts 1 / CPU ratio each. Memory is
// the pool the guest cell draws from: its huge page size when it uses huge pages
// (pages used, reserved and asked, exact), otherwise the cell's memory (times the RAM
// ratio when the cell floats and pins nothing). Scores come from kube-scheduler's
// functions (scoring/): 0..100 per pair, higher is better for the strategy.
#pragma once

#include <cstdint>

#include "placement/request/guest_topology.h"
#include "placement/model/host_topology.h"
#include "placement/scoring/requested_to_capacity_ratio.h"
#include "placement/fit/strategy.h"

namespace numaplace {

// A host cell's CPU and memory use and capacity with the guest cell added.
struct CellLoad {
  std::int64_t cpu_used_milli = 0;      // after the guest cell
  std::int64_t cpu_capacity_milli = 0;
  std::int64_t memory_used_kib = 0;     // after the guest cell, in the pool it draws from
  std::int64_t memory_capacity_kib = 0;

  int cpu_percent() const;     // floored, 0 when there is no capacity
  int memory_percent() const;
};

// The load of `cell` once `guest_cell` is on it. `pagesize_kib`: the page size the fit chose (0: none requested); `reserve_emulator`: one more pCPU.
CellLoad cell_load_after(const HostTopology& host, const HostCell& cell, const GuestTopology& guest,
                         const GuestCell& guest_cell, std::uint64_t pagesize_kib, bool reserve_emulator);

// The strategy's score of that load; `shape` is used by Strategy::Ratio only, Nova scores 0.
// Strategy::Adaptive is resolved first (cell_scoring_strategy); unresolved it scores 0.
std::int64_t score_cell_load(const CellLoad& load, Strategy strategy, const scoring::UtilizationShape* shape,
                             const ResourceWeights& weights);

}  // namespace numaplace

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Host cells and guests the benchmarks build their cases from, so that every benchmark speaks
// of the same shapes: an SMT cell of `cores` cores x 2 threads (core c holds CPUs base + c and
// base + cores + c, base = id x 2 x cores), every CPU both shared and dedicated, `memory_kib`,
// no pages and no usage; and a guest of `cells` cells of 4 vCPUs and 4 GiB each.
#pragma once

#include <cstdint>

#include "placement/request/guest_topology.h"
#include "placement/model/host_topology.h"

namespace numaplace::bench {

inline HostCell smt_cell(std::uint32_t id, std::uint32_t cores, std::uint64_t memory_kib) {
  HostCell cell;
  cell.id = id;
  const std::uint32_t base = id * 2 * cores;
  cell.cpus = CpuSet::range(base, base + 2 * cores - 1);
  cell.shared_cpus = cell.cpus;
  cell.dedicated_cpus = cell.cpus;
  for (std::uint32_t c = 0; c < cores; ++c) cell.siblings.push_back(CpuSet{base + c, base + cores + c});
  cell.memory_kib = memory_kib;
  return cell;
}

// Dedicated guests pin every vCPU under `policy`; shared ones float.
inline GuestTopology four_vcpu_cells(std::uint32_t cells, bool dedicated, ThreadPolicy policy = ThreadPolicy::Unset) {
  GuestTopology guest;
  guest.cpu_policy = dedicated ? CpuPolicy::Dedicated : CpuPolicy::Shared;
  if (dedicated) guest.thread_policy = policy;
  for (std::uint32_t i = 0; i < cells; ++i) {
    GuestCell cell;
    cell.id = i;
    cell.cpus = CpuSet::range(4 * i, 4 * i + 3);
    if (dedicated) cell.dedicated_cpus = cell.cpus;
    cell.memory_kib = std::uint64_t{4} << 20;
    guest.cells.push_back(cell);
  }
  return guest;
}

}  // namespace numaplace::bench

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Hosts and guests built by hand for unit tests, so that each test file states only what differs:
// a flat cell (one thread a core, every CPU both shared and dedicated, no page pools), a cell of
// two-thread cores, and guest cells given as {vCPUs, memory}, numbered on from vCPU 0. Plain
// values; nothing here decides.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "placement/model/cpu_set.h"
#include "placement/model/guest_request.h"
#include "placement/request/guest_topology.h"
#include "placement/model/host_topology.h"

namespace numaplace::testing {

inline constexpr std::uint64_t kMiBInKiB = 1024;
inline constexpr std::uint64_t kGiBInKiB = 1024 * 1024;

// Cell `id` over `cpus`, each its own core, with `memory_kib` and no usage.
inline HostCell flat_cell(std::uint32_t id, const CpuSet& cpus, std::uint64_t memory_kib) {
  HostCell cell;
  cell.id = id;
  cell.cpus = cpus;
  cell.shared_cpus = cpus;
  cell.dedicated_cpus = cpus;
  for (auto cpu : cpus) cell.siblings.push_back(CpuSet{cpu});
  cell.memory_kib = memory_kib;
  return cell;
}

// Cell 0 of `cores` cores with two threads each (core i = {i, i + cores}), 1 GiB, no usage.
inline HostCell smt_cell(std::uint32_t cores) {
  HostCell cell;
  cell.cpus = CpuSet::range(0, 2 * cores - 1);
  cell.shared_cpus = cell.cpus;
  cell.dedicated_cpus = cell.cpus;
  for (std::uint32_t i = 0; i < cores; ++i) cell.siblings.push_back(CpuSet{i, i + cores});
  cell.memory_kib = 1 << 20;
  return cell;
}

// A guest of one cell per {vCPUs, memory in units of `unit_kib`}; vCPUs numbered on from 0,
// shared CPUs unless the caller changes the policy.
inline GuestTopology guest_of(const std::vector<std::pair<std::uint32_t, std::uint64_t>>& cells,
                              std::uint64_t unit_kib) {
  GuestTopology topology;
  std::uint32_t next = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    GuestCell cell;
    cell.id = static_cast<std::uint32_t>(i);
    cell.cpus = CpuSet::range(next, next + cells[i].first - 1);
    next += cells[i].first;
    cell.memory_kib = cells[i].second * unit_kib;
    topology.cells.push_back(cell);
  }
  return topology;
}

// A request of `vcpus` vCPUs and 4 GiB with these flavor extra specs and image properties.
inline GuestRequest request_of(std::uint32_t vcpus, SpecMap flavor, SpecMap image = {}) {
  GuestRequest r;
  r.vcpus = vcpus;
  r.memory_kib = 4 * kGiBInKiB;
  r.flavor_specs = std::move(flavor);
  r.image_props = std::move(image);
  return r;
}

}  // namespace numaplace::testing

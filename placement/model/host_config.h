/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The host's own configuration, as an operator states it once for every surface: which
// CPUs floating and dedicated guests may use (Nova's [compute] cpu_shared_set and
// cpu_dedicated_set, with Nova's meaning: neither set gives every CPU to both, the legacy
// overlap; one set alone gives the other kind none; both set partition the host, so floating
// and dedicated guests never meet), CPUs and memory kept for the host, huge pages reserved per
// cell (Nova's reserved_huge_pages), the CPU and RAM allocation ratios, and how usage is counted
// (host_topology.h's Accounting). apply_host_config checks every value against the host and
// changes it only when all of them hold.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "placement/model/cpu_set.h"
#include "placement/model/error.h"
#include "placement/model/host_topology.h"

namespace numaplace {

struct ReservedHugePages {
  std::uint32_t node = 0;
  std::uint64_t size_kib = 0;
  std::uint64_t count = 0;
};

struct ReservedMemory {
  std::uint32_t node = 0;
  std::uint64_t kib = 0;
};

struct HostConfig {
  std::string source = "host configuration";  // named in errors ("host configuration '/etc/...'")
  std::optional<CpuSet> cpu_dedicated_set;
  std::optional<CpuSet> cpu_shared_set;
  CpuSet reserved_cpus;  // never given to a guest (the host's own work: pCPU 0, interrupts)
  std::vector<ReservedHugePages> reserved_huge_pages;
  std::vector<ReservedMemory> reserved_memory;
  std::optional<double> cpu_allocation_ratio;
  std::optional<double> ram_allocation_ratio;
  std::optional<Accounting> accounting;
};

// Errors: InvalidHostConfig naming the setting and what to change (CPUs the host does not have,
// overlapping sets, a node or page size it does not have, more reserved than there is).
Status apply_host_config(HostTopology& host, const HostConfig& config);

}  // namespace numaplace

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The guest's CPU topology (<cpu><topology>) from the request's hw:cpu_sockets,
// hw:cpu_cores, hw:cpu_threads (preferred values), hw:cpu_max_sockets, _max_cores,
// _max_threads (limits) and their image twins hw_cpu_*, with Nova's rules: an image limit
// may not exceed the flavor's, the limits are the image's else the flavor's, a preferred
// value may not exceed its limit, and any preferred value on the image replaces every
// preferred value of the flavor. Among the topologies whose sockets x cores x threads is the
// vCPU count and that stay within the limits, Nova's order is kept: most sockets x cores
// first, then most sockets, then most threads.
// Where numaplace is stricter than Nova (docs/DESIGN-NOTES.md): every preferred value given
// must be met (Nova silently takes the closest), and with guest NUMA cells every socket's
// vCPUs must lie in one cell (socket s holds vCPUs s*cores*threads .. (s+1)*cores*threads-1,
// as QEMU numbers them), so the topology agrees with the cells; when no topology does, the
// request is refused (CpuTopologyUnsatisfiable). Pure: no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "placement/model/cpu_set.h"
#include "placement/model/error.h"
#include "placement/model/guest_request.h"

namespace numaplace {

struct CpuTopology {
  std::uint32_t sockets = 1;
  std::uint32_t cores = 1;
  std::uint32_t threads = 1;

  bool operator==(const CpuTopology&) const = default;
};

// What the request asks of the topology; 0 is "no preference" or "no limit".
struct CpuTopologyRequest {
  std::uint64_t sockets = 0, cores = 0, threads = 0;
  std::uint64_t max_sockets = 0, max_cores = 0, max_threads = 0;
};

// The request's topology wishes, or nullopt when it names none of the keys (the domain's own
// <topology>, if any, is then left as written). ValueError for a value that is not a whole
// number of 0 or more; ImageVCPULimitsRangeExceeded for an image limit above the flavor's;
// ImageVCPUTopologyRangeExceeded for a preferred value above its limit.
Result<std::optional<CpuTopologyRequest>> read_cpu_topology_request(const GuestRequest& request);

// The topology for `vcpus` (at least 1) under `wish`, agreeing with `cells` (the vCPUs of each
// guest NUMA cell; empty: the guest has no NUMA topology). ImageVCPULimitsRangeImpossible when
// the limits alone allow none; CpuTopologyUnsatisfiable when the preferred values or the cells
// rule out every topology the limits allow.
Result<CpuTopology> best_cpu_topology(std::uint32_t vcpus, const CpuTopologyRequest& wish,
                                      const std::vector<CpuSet>& cells);

}  // namespace numaplace

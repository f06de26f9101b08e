/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What a guest's domain must say besides where it runs, derived from its request, so that
// no key numaplace accepts is left unapplied (xml/domain_writer.h writes it):
//   - the realtime vCPUs (hw:cpu_realtime + hw:cpu_realtime_mask / hw_cpu_realtime_mask):
//     a FIFO scheduler at priority 1 for them, their memory locked and not shared, and the
//     emulator threads off their pCPUs (fit.h: emulator_cpus);
//   - locked memory (hw:locked_memory / hw_locked_memory, which needs a page size);
//   - the CPU topology (hw:cpu_sockets ... and their limits, cpu_topology.h), only when the
//     request names one of those keys.
// Pure: no I/O.
#pragma once

#include <cstdint>
#include <optional>

#include "placement/model/cpu_set.h"
#include "placement/model/error.h"
#include "placement/model/guest_request.h"
#include "placement/request/cpu_topology.h"
#include "placement/request/guest_topology.h"

namespace numaplace {

// The scheduler priority Nova gives realtime vCPUs (its realtime_scheduler_priority default).
inline constexpr int kRealtimePriority = 1;

struct GuestTuning {
  CpuSet realtime_vcpus;                   // each gets <vcpusched scheduler='fifo' priority='1'>
  bool locked_memory = false;              // <memoryBacking><locked/>
  bool no_shared_pages = false;            // <memoryBacking><nosharepages/> (realtime guests)
  std::optional<CpuTopology> cpu_topology;  // <cpu><topology>; nullopt: left as the domain has it

  bool empty() const { return realtime_vcpus.empty() && !locked_memory && !no_shared_pages && !cpu_topology; }
};

// `topology` is what derive_guest_topology made of the same request (nullopt: no NUMA topology).
Result<GuestTuning> derive_guest_tuning(const GuestRequest& request, const std::optional<GuestTopology>& topology);

}  // namespace numaplace

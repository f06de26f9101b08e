/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The CPU part of Nova's numa_get_constraints, in Nova's order (the first failing
// check names the error): hw:cpu_policy (+ image hw_cpu_policy), hw:cpu_thread_policy
// (+ image), hw:cpu_realtime / hw:cpu_realtime_mask, hw:cpu_dedicated_mask,
// hw:emulator_threads_policy, resources[N]:VCPU / resources[N]:PCPU and
// trait[N]:HW_CPU_HYPERTHREADING, then the sanity checks of the final policy.
// The result says which vCPUs are dedicated (need a pCPU of their own).
#pragma once

#include <cstdint>

#include "placement/model/cpu_set.h"
#include "placement/model/error.h"
#include "placement/model/guest_request.h"
#include "placement/request/guest_topology.h"
#include "placement/request/image_properties.h"

namespace numaplace {

struct CpuConstraints {
  CpuPolicy cpu_policy = CpuPolicy::Unset;
  ThreadPolicy thread_policy = ThreadPolicy::Unset;
  EmulatorThreadsPolicy emulator_threads_policy = EmulatorThreadsPolicy::Unset;
  CpuSet dedicated_vcpus;  // all vCPUs for dedicated; the mask (or realtime mask) for mixed
  CpuSet realtime_vcpus;   // hw:cpu_realtime: the realtime vCPUs; empty when off
  // hw:cpu_thread_policy is the empty string and nothing replaced it: Nova accepts it here but
  // cannot store it on a guest cell, so a guest that gets a NUMA topology is refused (ValueError).
  bool thread_policy_empty = false;
};

Result<CpuConstraints> derive_cpu_constraints(const GuestRequest& request, const ImageProperties& image);

}  // namespace numaplace

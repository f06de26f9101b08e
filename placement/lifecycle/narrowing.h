/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Keeping other guests off the pCPUs a dedicated guest is about to hold. Under Exclusive
// accounting no thread of any guest (vCPU, emulator, iothread) runs on a pCPU another guest
// holds; a guest placed later avoids them by itself (floating_cpus_of), but guests already on
// the host may float over the pCPUs a new dedicated guest takes. plan_narrowing lists every such
// thread with what it keeps (its pCPUs less the taken ones), as the kubelet's CPU manager shrinks
// its shared pool; a thread that would keep nothing makes the new guest WouldStarveGuest, naming
// the guest and the element.
#pragma once

#include <string>
#include <vector>

#include "placement/lifecycle/claims.h"
#include "placement/model/cpu_set.h"
#include "placement/model/error.h"

namespace numaplace {

struct Narrowing {
  std::string guest;
  std::string uuid;
  bool running = false;
  ThreadAffinity thread;  // as it is now
  CpuSet kept;            // what it may run on afterwards
};

// `taken`: the pCPUs the new guest will hold. `others`: the guests already on the host (the new
// guest's own earlier claim left out).
Result<std::vector<Narrowing>> plan_narrowing(const std::vector<GuestClaim>& others, const CpuSet& taken,
                                              const std::string& new_guest);

// The first thread of `others` that `taken` would leave with no pCPU, if any.
const ThreadAffinity* starving_thread(const std::vector<GuestClaim>& others, const CpuSet& taken);

// "web: vCPU 2 (<vcpupin vcpu='2'>) 0-7 -> 0-1,6-7"
std::string describe(const Narrowing& narrowing);

}  // namespace numaplace

// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/lifecycle/narrowing.h"

namespace numaplace {

Result<std::vector<Narrowing>> plan_narrowing(const std::vector<GuestClaim>& others, const CpuSet& taken,
                                              const std::string& new_guest) {
  std::vector<Narrowing> out;
  if (taken.empty()) return out;
  for (const auto& guest : others) {
    for (const auto& thread : guest.threads) {
      if (!thread.cpus.intersects(taken)) continue;
      Narrowing narrowing{guest.name, guest.uuid, guest.running, thread, thread.cpus.minus(taken)};
      if (narrowing.kept.empty()) {
        return make_error("WouldStarveGuest",
                          "guest '" + new_guest + "' would hold pCPUs " + to_cpu_list(thread.cpus.intersected(taken)) +
                              ", which are all that " + describe(thread) + " of guest '" + guest.name +
                              "' may run on (" + thread.source + " " + to_cpu_list(thread.cpus) +
                              "); widen that guest's pins or place the new guest elsewhere");
      }
      out.push_back(std::move(narrowing));
    }
  }
  return out;
}

const ThreadAffinity* starving_thread(const std::vector<GuestClaim>& others, const CpuSet& taken) {
  for (const auto& guest : others) {
    for (const auto& thread : guest.threads) {
      if (!thread.cpus.empty() && thread.cpus.is_subset_of(taken)) return &thread;
    }
  }
  return nullptr;
}

std::string describe(const Narrowing& narrowing) {
  return narrowing.guest + ": " + describe(narrowing.thread) + " (" + narrowing.thread.source + ") " +
         to_cpu_list(narrowing.thread.cpus) + " -> " + to_cpu_list(narrowing.kept);
}

}  // namespace numaplace

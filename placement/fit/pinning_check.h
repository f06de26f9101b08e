/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Whether pin_dedicated_cpus (cpu_pinning.h) in Nova's order would pin a guest cell on a host
// cell, decided from how many free threads each core has, without building the pinning; and,
// for the floating check of a real host, how many pCPUs of a given set the pinning would take
// (its pins, the emulator's reserved pCPUs, isolate's held siblings). The fit matrix asks this
// for every (guest cell, host cell) pair and keeps only the answer; the pinning itself is built
// for the chosen pairs alone.
// The contract is the pinning's answer exactly: Fits when pin_dedicated_cpus returns a pinning,
// NoFit when it returns none, and taken_within equal to the pinning's pCPUs in `within`. Where
// counts cannot say which pCPUs would be taken (sibling groups that overlap, or non-isolate
// pinning whose free pCPUs lie partly inside `within`), it answers Undecided and the caller
// builds the pinning. It never explains a NoFit: the caller asks pin_dedicated_cpus for the
// reason, so the reasons stay the pinning's own. PinningCheckProperty.* checks all of this
// against pin_dedicated_cpus on random cells.
#pragma once

#include <cstddef>
#include <cstdint>

#include "placement/model/cpu_set.h"
#include "placement/model/host_topology.h"
#include "placement/request/guest_topology.h"

namespace numaplace {

struct PinningCheck {
  enum class Verdict { Fits, NoFit, Undecided };
  Verdict verdict = Verdict::Undecided;
  std::size_t taken_within = 0;  // Fits with `within` given: pCPUs of `within` the pinning takes
};

// `wanted` dedicated vCPUs (and `reserve` emulator pCPUs) on `cell` under `policy`, as
// pin_dedicated_cpus(cell, <wanted vCPUs>, policy, reserve, why, PinningStyle::NovaOrder,
// whole_core_emulator) would pin them. `within` may be null (taken_within is then 0).
PinningCheck check_dedicated_pinning(const HostCell& cell, std::size_t wanted, ThreadPolicy policy,
                                     std::uint32_t reserve, bool whole_core_emulator, const CpuSet* within);

}  // namespace numaplace

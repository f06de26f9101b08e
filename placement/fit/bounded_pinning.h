/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Pinning a guest cell's dedicated vCPUs when the operator bounded some of them (<vcpupin>, or a
// <vcpu cpuset> narrower than the host the fit sees) to sets of pCPUs, or bounded the emulator
// threads whose isolated pCPU the cell reserves (<emulatorpin>). The answer is
// pin_dedicated_cpus's own pinning whenever its pCPUs can be handed to the vCPUs within their bounds
// (a bipartite matching, each vCPU keeping its own pCPU where it may) and its emulator pCPU lies in
// the emulator's bound; otherwise the bounded vCPUs and the bounded emulator are matched first,
// each onto a free pCPU of its bound that the thread policy lets it take (isolate: vCPUs one per
// fully free core, the emulator on a core of its own; require: vCPUs on cores with two or more free
// threads), and the other vCPUs (and an unbounded emulator pCPU) are pinned by pin_dedicated_cpus
// on what is left.
// Bounds only narrow: it fits only where pin_dedicated_cpus fits without them, and never puts a
// vCPU outside its bound. It may miss a pinning that a search over every choice would find when
// the unbounded vCPUs' thread policy depends on which cores the bounded ones took; then it says so.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "placement/fit/cpu_pinning.h"

namespace numaplace {

// pin_dedicated_cpus with `bounds` (vCPU -> pCPUs it may take; vCPUs absent from it are free to
// take any) and `emulator_bound` (where the `reserve` emulator pCPU must lie; null: anywhere):
// nullopt when no pinning keeps them, with the reason in *why (when why is not null).
std::optional<CpuPinning> pin_dedicated_cpus_within(const HostCell& cell, const CpuSet& vcpus,
                                                    const std::map<std::uint32_t, CpuSet>& bounds,
                                                    const CpuSet* emulator_bound, ThreadPolicy policy,
                                                    std::uint32_t reserve, std::string* why,
                                                    PinningStyle style = PinningStyle::NovaOrder,
                                                    bool whole_core_emulator = false);

// pin_dedicated_cpus_within (no emulator pCPU reserved) for a guest whose emulator threads run on
// the pCPUs of `emulator_vcpus` (a dedicated guest without isolate: its non-realtime vCPUs), of
// which at least one must then lie in `emulator_bound`: the plain answer when it does, else each
// of those vCPUs tried in turn with its bound narrowed to the emulator's. Exact where
// pin_dedicated_cpus_within is.
std::optional<CpuPinning> pin_dedicated_cpus_near_emulator(const HostCell& cell, const CpuSet& vcpus,
                                                           const std::map<std::uint32_t, CpuSet>& bounds,
                                                           const CpuSet& emulator_vcpus, const CpuSet& emulator_bound,
                                                           ThreadPolicy policy, std::string* why,
                                                           PinningStyle style = PinningStyle::NovaOrder,
                                                           bool whole_core_emulator = false);

}  // namespace numaplace

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Pinning the dedicated vCPUs of one guest cell onto free pCPUs of one host cell,
// with Nova's thread policies over the host's thread siblings:
//   prefer (or unset): fill whole free cores first, then cores with fewer free
//     threads, then any free pCPU;
//   isolate: one thread of each fully free core, its siblings left unused (an SMT
//     host whose shared and dedicated sets differ cannot isolate);
//   require: only cores with at least two free threads, never a lone thread.
// With `reserve` = 1 (emulator threads isolate, guest cell 0) one more free pCPU,
// not used by the pinning (isolate: not on a core it uses), is reserved.
// PinningStyle::NovaOrder takes cores in the host's sibling order and threads in
// ascending order; Nova walks Python sets there, so its exact pCPU choice may differ,
// never whether it fits. PinningStyle::Compact (the scored strategies) fits exactly
// when NovaOrder does but chooses with the future in mind: whole free cores for whole
// multiples of a core's threads, a remainder on the most used core that can hold it
// (partly used cores before breaking a whole one), and the emulator pCPU likewise; on a cell of
// several L3 cache domains it pins into as few domains as hold the vCPUs (one when one does, the
// tightest that does), by the same rules within them, and over the whole cell only when no such
// choice meets the thread policy: L3 changes which pCPUs, never whether it fits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "placement/model/cpu_set.h"
#include "placement/request/guest_topology.h"
#include "placement/model/host_topology.h"

namespace numaplace {

// One guest cell's pinning on one host cell.
struct CpuPinning {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pinning;  // vCPU -> pCPU, ascending vCPU
  CpuSet reserved;                                                // pCPUs for the emulator threads
  CpuSet isolated;  // isolate: the other threads of every core it uses, held idle (as Nova pins them)
};

// The thread sibling groups Nova sees: the cell's own, or each CPU alone when it reports none.
std::vector<CpuSet> sibling_groups(const HostCell& cell);

// Which pCPUs a pinning takes (never whether it fits): Nova's order, or compact (scored strategies).
enum class PinningStyle { NovaOrder, Compact };

// Pins `vcpus` (and `reserve` emulator pCPUs) on free pCPUs of `cell` under `policy`;
// nullopt when it cannot be done, with the reason in *why (when why is not null).
// `whole_core_emulator` (real hosts, Exclusive accounting): under isolate the emulator's pCPU
// comes from a core with every thread free, so that the siblings held with it are free too.
std::optional<CpuPinning> pin_dedicated_cpus(const HostCell& cell, const CpuSet& vcpus, ThreadPolicy policy,
                                             std::uint32_t reserve, std::string* why,
                                             PinningStyle style = PinningStyle::NovaOrder,
                                             bool whole_core_emulator = false);

}  // namespace numaplace

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Whether one guest cell fits one host cell on its own, in Nova's order of checks:
//   memory: a requested page size needs free pages of that size holding the cell
//     exactly (page_size.h); otherwise the cell may not exceed the host cell's total
//     (its smallest pages' total when the host reports pages);
//   size: no more dedicated vCPUs (+ the emulator pCPU) than the cell's dedicated
//     set, no more shared vCPUs than its shared set;
//   dedicated part: enough free pCPUs, free memory without any ratio, and a pinning
//     under the thread policy (cpu_pinning.h);
//   shared part (shared, unset and mixed cells): shared load and memory usage within
//     CPU ratio x shared CPUs and RAM ratio x cell memory.
// Each stage of checks (the cell's totals, what is free now, the allocation ratios) is one
// ResourceVector comparison (fit_demands.h) of what the guest cell asks against what it offers;
// the first dimension short, in Nova's order, names the reason.
// On success it says the chosen page size and the pinning; on failure, why, naming
// the resource, how much was asked and how much is free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "placement/fit/cpu_pinning.h"
#include "placement/request/guest_topology.h"
#include "placement/model/host_topology.h"

namespace numaplace {

// Whether the guest cell fits, and if so with which page size and pinning.
struct CellFit {
  bool fits = false;
  std::string reason;              // when it does not fit
  std::uint64_t pagesize_kib = 0;  // chosen page size when the guest asked for one
  CpuPinning pinning;              // dedicated vCPUs -> pCPUs, emulator reservation
};

// `reserve_emulator`: this guest cell carries the emulator threads' own pCPU
// (hw:emulator_threads_policy=isolate puts it on guest cell 0). `style` only changes
// which pCPUs are pinned, never whether the cell fits (cpu_pinning.h).
CellFit fit_cell(const HostTopology& host, const HostCell& cell, const GuestTopology& guest,
                 const GuestCell& guest_cell, bool reserve_emulator,
                 PinningStyle style = PinningStyle::NovaOrder);

// fit_cell's answer (fits, reason, page size) without the pinning, which stays empty: the fit
// matrix's check of every pair. Whether the dedicated vCPUs can be pinned is decided from counts
// (pinning_check.h), the pinning built only where counts cannot decide and for the reason of a
// misfit, so the answer is fit_cell's exactly (CellFitDecision.* compares them on random cells).
// `with_reason` false: the reason of a misfit is left empty (a verdict-only fit, FitOptions::reasons).
CellFit fit_cell_decision(const HostTopology& host, const HostCell& cell, const GuestTopology& guest,
                          const GuestCell& guest_cell, bool reserve_emulator, bool with_reason = true);

// True when the topology's guest cell `guest_cell` is the one that reserves the emulator pCPU.
bool reserves_emulator_cpu(const GuestTopology& guest, const GuestCell& guest_cell);

}  // namespace numaplace

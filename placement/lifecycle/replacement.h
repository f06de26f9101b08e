/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Placing a guest again, moving only what must move. A domain placed by numaplace carries
// its placement (xml/placement_record.h); when the guest is placed again (the host's other
// guests changed, a restore or migration, a second `place`), that record is the starting
// point:
//   Kept:      every guest cell still fits its recorded host cell with its recorded pins
//              (pCPUs free, isolate's sibling threads free, the emulator pCPU free, its page
//              pool and the cell's capacity holding): nothing changes;
//   Repinned:  every guest cell still fits its recorded host cell, but some recorded pins
//              are held by others now: only those cells are pinned again, on the same host
//              cell; the other cells keep their pins;
//   Moved:     some guest cell no longer fits its host cell: a fresh fit (fit.h), the
//              strategy's choice.
// A record that does not describe this guest (other cells, vCPUs or memory) is not used:
// Fresh, a fresh fit. `host` must carry the usage of every other guest, not this one's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "placement/fit/fit.h"
#include "placement/request/guest_topology.h"
#include "placement/model/host_topology.h"

namespace numaplace {

enum class ReplacementKind { Fresh, Kept, Repinned, Moved };

struct Replacement {
  ReplacementKind kind = ReplacementKind::Fresh;
  FitResult fit;                        // fit.placement: the answer (nullopt: nothing fits)
  std::vector<std::uint32_t> repinned;  // guest cells pinned again (Repinned)
  std::string why;                      // what made the record unusable or a cell move
  std::string refreshed;                // kept cells whose floating CPUs differ from the record's, and how
};

// Whether `recorded` describes `guest` (same guest cells, vCPUs and memory), or why not.
std::optional<std::string> record_mismatch(const GuestTopology& guest, const Placement& recorded);

// Why the recorded cell no longer holds on `host` with its pins, or nullopt when it does.
std::optional<std::string> recorded_cell_problem(const HostTopology& host, const GuestTopology& guest,
                                                 const GuestCell& guest_cell, const CellPlacement& recorded);

Replacement place_again(const HostTopology& host, const GuestTopology& guest, const Placement& recorded,
                        const FitOptions& options);

std::string to_string(ReplacementKind kind);

}  // namespace numaplace

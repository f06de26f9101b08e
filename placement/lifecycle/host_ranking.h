/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Ranking many hosts for one guest, as a scheduler would: the same fit test the
// host itself runs (fit_guest on the host's cells and usage), then a score per
// fitting host by a kube-scheduler NodeResourcesFit strategy (score_node) on the
// host's totals after the guest is added, best first.
// Host totals: cpu in millicores, allocatable = every CPU of every cell x 1000;
// requested = pinned pCPUs x 1000 + floating vCPU load x 1000 / cpu ratio, and the
// guest adds its dedicated vCPUs x 1000 and its shared vCPUs x 1000 / cpu ratio.
// memory in bytes: allocatable = the cells' memory, requested = what guests hold.
// A guest without a NUMA topology (Nova's no_topology) fits a host some set of whose cells
// can hold it as place confines it (floating_shortfall: vCPUs within the CPU ratio on the
// floating pCPUs, memory physically free in its page size, within the RAM ratio).
// Order: fitting hosts by score (highest first), ties by input order; then the
// refused ones in input order, each with its reason. A request place would refuse on any
// host (a CPU topology it cannot write, guest_tuning.h) is an error. Pure; no I/O; no global state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "placement/model/error.h"
#include "placement/fit/fit.h"
#include "placement/model/guest_request.h"
#include "placement/request/guest_topology.h"
#include "placement/model/host_topology.h"
#include "placement/scoring/scoring_strategy.h"

namespace numaplace {

struct RankOptions {
  FitOptions fit;                   // how each host's cells are chosen
  scoring::ScoringConfig scoring;   // how hosts are compared (default LeastAllocated: spread)
  bool explain = false;             // refused hosts carry every (guest cell, host cell) reason
  bool keep_placements = true;      // fitting hosts carry their cell placement
  // A guest without a NUMA topology whose memory is backed by pages of this size (KiB; 0 or 4:
  // small pages), as place confines it: the memory must be free in such pages over the host's cells.
  std::uint64_t floating_page_kib = 0;
};

struct RankedHost {
  std::size_t index = 0;               // position in the hosts given
  bool fits = false;
  std::int64_t score = 0;              // 0..100 when it fits
  std::optional<Placement> placement;  // when it fits, the guest has a topology and keep_placements
  std::string reason;                  // why it was refused: the fit's summary, one sentence
  std::vector<CellRejection> rejections;  // with explain: every (guest cell, host cell) pair that cannot fit
};

// The host's totals as score_node reads them, before any new guest.
scoring::NodeResources host_resources(const HostTopology& host);
// What the guest adds to them (`topology` null: a guest without a NUMA topology).
scoring::PodRequest guest_resources(const GuestRequest& request, const GuestTopology* topology, double cpu_ratio);

// Errors: the request's (derive_guest_topology) and an invalid scoring shape.
Result<std::vector<RankedHost>> rank_hosts(std::span<const HostTopology> hosts, const GuestRequest& request,
                                           const RankOptions& options);

}  // namespace numaplace

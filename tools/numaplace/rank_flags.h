// SPDX-License-Identifier: LGPL-2.1-or-later
// rank's strategy flags read into RankOptions: the cells of each host are chosen as place chooses
// them (--strategy, --ratio-shape, --ratio-weights, --pack), and the hosts that fit are scored by
// --host-strategy or, without it, by the cell strategy's counterpart (pack: MostAllocated, ratio:
// RequestedToCapacityRatio with the same shape, any other: LeastAllocated). A host-scoring name given
// to --strategy (rank's flag before it chose cells too) sets the host scoring alone. Shared by
// `numaplace rank` and `numaplace-dev fleet`, so both rank hosts the same way.
#pragma once

#include <string>

#include "numaplace/explain_output.h"
#include "placement/lifecycle/host_ranking.h"
#include "placement/model/error.h"

namespace numaplace::cli {

struct RankStrategyFlags {
  StrategyCliOptions cells;   // the cell strategy on each host, as place's flags
  std::string host_strategy;  // LeastAllocated, MostAllocated, RequestedToCapacityRatio; empty: from --strategy
};

// The fit and scoring options the flags ask for (explain and keep_placements at their defaults);
// an unknown name, a bad shape or weights, or a --ratio-shape no strategy takes is InvalidArgument.
Result<RankOptions> rank_options_from_flags(const RankStrategyFlags& flags);

}  // namespace numaplace::cli

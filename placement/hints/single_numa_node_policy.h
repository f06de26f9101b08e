/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Policy single-numa-node: only {any, preferred} hints and preferred hints of exactly
// one node take part (a list left empty makes every combination fail); masks compare
// by narrowness only (prefer-closest does not apply). A result spanning all nodes
// reads as "any"; admitted only when preferred.
#pragma once

#include <vector>

#include "placement/hints/numa_info.h"
#include "placement/hints/topology_policy.h"

namespace numaplace {

// The lists with only the hints single-numa-node lets take part.
std::vector<HintList> single_numa_node_hint_lists(const std::vector<HintList>& lists);

HintMergeResult merge_with_single_numa_node_policy(const std::vector<HintList>& lists, const NumaInfo& numa,
                                                   const MergeOptions& options);

}  // namespace numaplace

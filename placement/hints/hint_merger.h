/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Merging hint lists into the best merged hint, the heart of every policy.
// A merged hint takes one hint from each list: its affinity is the AND of the
// chosen affinities ("any" = all nodes) within the host's nodes; it is preferred
// when every chosen hint is preferred and all chosen affinities are equal. The
// winner is the best merged hint under hint_ranking.h; none when a list is empty or
// every combination leaves no node.
//
// choose_merged_hint_by_enumeration walks the whole cross product as the kubelet
// does: exponential in the number of lists. choose_merged_hint finds the same winner
// without it: preferred winners come from masks every list prefers (or is
// indifferent to); otherwise the set of reachable AND masks is built list by list,
// sparsely while small and, up to 20 nodes, densely with subset-sum (zeta/Moebius)
// transforms over the 2^n node subsets, whose cost does not grow with list length.
#pragma once

#include <optional>
#include <vector>

#include "placement/hints/hint_ranking.h"
#include "placement/hints/numa_info.h"
#include "placement/hints/topology_hint.h"
#include "placement/hints/topology_policy.h"

namespace numaplace {

struct MergedHintChoice {
  std::optional<TopologyHint> best;  // absent: no merged hint has a node
  int best_non_preferred_affinity_count = 0;
};

MergedHintChoice choose_merged_hint(const std::vector<HintList>& lists, const NumaInfo& numa, MaskOrder order);
MergedHintChoice choose_merged_hint_by_enumeration(const std::vector<HintList>& lists, const NumaInfo& numa,
                                                   MaskOrder order);
// One of the two above, by `algorithm`.
MergedHintChoice choose_merged_hint(const std::vector<HintList>& lists, const NumaInfo& numa, MaskOrder order,
                                    MergeAlgorithm algorithm);

}  // namespace numaplace

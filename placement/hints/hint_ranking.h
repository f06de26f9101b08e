/* SPDX-License-Identifier: LGPL-2.1-or-later */
// How the kubelet's TopologyManager ranks merged hints, one comparison at a time:
// a merged hint with no nodes never wins; preferred beats not preferred; between two
// preferred hints the better mask wins (MaskOrder); between two non-preferred hints,
// the one whose node count is nearest bestNonPreferredAffinityCount from below wins
// (equal is best, wider than it is worst, then the better mask). The count is the
// largest, over the hint lists, of the narrowest mask width in that list: aim for
// the widest minimum any single resource needs, never wider.
// better_merged_hint() is that comparison step by step (the enumerating merge uses it);
// the fast merge in hint_merger.cpp reaches the same winner without pairwise steps.
#pragma once

#include <vector>

#include "placement/hints/numa_info.h"
#include "placement/hints/topology_hint.h"

namespace numaplace {

// Narrowest: fewer nodes, then the lower mask value. Closest (prefer-closest-numa-nodes):
// fewer nodes, then the smaller mean distance between the mask's nodes, then the lower value.
enum class MaskOrder { Narrowest, Closest };

// True when `candidate` is strictly better than `current` under `order` (equal masks: false).
bool mask_beats(NumaNodeMask candidate, NumaNodeMask current, MaskOrder order, const NumaInfo& numa);

// The largest, over the lists, of the node count of the narrowest hint with an affinity;
// lists holding only "any" hints do not count. 0 when no list has an affinity.
int best_non_preferred_affinity_count(const std::vector<HintList>& lists);

// The better of `current` (nullptr: none yet) and `candidate`, as the kubelet's
// HintMerger.compare decides; both hints carry an affinity.
const TopologyHint* better_merged_hint(const TopologyHint* current, const TopologyHint* candidate,
                                       int best_non_preferred_count, MaskOrder order, const NumaInfo& numa);

}  // namespace numaplace

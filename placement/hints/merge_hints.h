/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The topology hint merge, the public entry point (the kubelet TopologyManager's
// Merge, without its 8-node limit): given one hint list per resource (vCPUs,
// memory, each huge page size, each PCI device; see topology_hint.h for how a
// provider's per-resource hints become lists), the host's NUMA nodes (and distances
// for prefer-closest), a policy and options, it answers the merged hint (affinity
// absent = not confined) and whether the policy admits the guest, with a reason.
// The answer equals the kubelet's full cross-product enumeration on every input;
// MergeOptions::algorithm picks that enumeration instead (tests, benchmarks).
// Errors: a host with more nodes than options.max_allowable_numa_nodes, or
// prefer-closest without distances.
//
//   auto numa = make_numa_info({0, 1, 2, 3});
//   auto merged = merge_hints(hint_lists_from_providers(providers), TopologyPolicy::BestEffort, {}, *numa);
//   if (merged && merged->admit && merged->hint.affinity) confine_to(*merged->hint.affinity);
#pragma once

#include <vector>

#include "placement/model/error.h"
#include "placement/hints/numa_info.h"
#include "placement/hints/topology_hint.h"
#include "placement/hints/topology_policy.h"

namespace numaplace {

Result<HintMergeResult> merge_hints(const std::vector<HintList>& hint_lists, TopologyPolicy policy,
                                    const MergeOptions& options, const NumaInfo& numa);

}  // namespace numaplace

// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/hints/merge_hints.h"

#include <string>

#include "placement/hints/best_effort_policy.h"
#include "placement/hints/none_policy.h"
#include "placement/hints/restricted_policy.h"
#include "placement/hints/single_numa_node_policy.h"

namespace numaplace {

Result<HintMergeResult> merge_hints(const std::vector<HintList>& hint_lists, TopologyPolicy policy,
                                    const MergeOptions& options, const NumaInfo& numa) {
  const int node_count = static_cast<int>(numa.nodes().size());
  if (node_count > options.max_allowable_numa_nodes) {
    return make_error("TooManyNumaNodes", "the host has " + std::to_string(node_count) +
                                              " NUMA nodes; the topology policy allows at most " +
                                              std::to_string(options.max_allowable_numa_nodes));
  }
  if (options.prefer_closest_numa_nodes && !numa.has_distances() && policy != TopologyPolicy::SingleNumaNode &&
      policy != TopologyPolicy::None) {
    return make_error("MissingNumaDistances", "prefer-closest-numa-nodes needs the host's NUMA distances");
  }
  switch (policy) {
    case TopologyPolicy::None: return merge_with_none_policy();
    case TopologyPolicy::BestEffort: return merge_with_best_effort_policy(hint_lists, numa, options);
    case TopologyPolicy::Restricted: return merge_with_restricted_policy(hint_lists, numa, options);
    case TopologyPolicy::SingleNumaNode: return merge_with_single_numa_node_policy(hint_lists, numa, options);
  }
  return make_error("UnknownTopologyPolicy", "unknown topology policy");
}

}  // namespace numaplace

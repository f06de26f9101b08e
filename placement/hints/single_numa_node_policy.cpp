// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/hints/single_numa_node_policy.h"

#include "placement/hints/merged_hint_result.h"

namespace numaplace {

std::vector<HintList> single_numa_node_hint_lists(const std::vector<HintList>& lists) {
  std::vector<HintList> filtered;
  filtered.reserve(lists.size());
  for (const HintList& list : lists) {
    HintList kept;
    for (const TopologyHint& hint : list) {
      if (hint.preferred && (!hint.affinity || hint.affinity->count() == 1)) kept.push_back(hint);
    }
    filtered.push_back(std::move(kept));
  }
  return filtered;
}

HintMergeResult merge_with_single_numa_node_policy(const std::vector<HintList>& lists, const NumaInfo& numa,
                                                   const MergeOptions& options) {
  HintMergeResult result =
      merged_hint_result(single_numa_node_hint_lists(lists), numa, options, TopologyPolicy::SingleNumaNode);
  if (result.hint.affinity && *result.hint.affinity == numa.all_nodes()) result.hint.affinity.reset();
  result.admit = result.hint.preferred;
  if (!result.admit) result.reason += "; policy single-numa-node refuses: no single NUMA node serves every resource";
  return result;
}

}  // namespace numaplace

// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/hints/merged_hint_result.h"

#include "placement/hints/hint_merger.h"
#include "placement/hints/merge_explanation.h"

namespace numaplace {

HintMergeResult merged_hint_result(const std::vector<HintList>& lists, const NumaInfo& numa,
                                   const MergeOptions& options, TopologyPolicy policy) {
  const MaskOrder order = options.prefer_closest_numa_nodes && policy != TopologyPolicy::SingleNumaNode
                              ? MaskOrder::Closest
                              : MaskOrder::Narrowest;
  const MergedHintChoice choice = choose_merged_hint(lists, numa, order, options.algorithm);
  HintMergeResult result;
  result.hint = choice.best ? *choice.best : TopologyHint{numa.all_nodes(), false};
  result.best_non_preferred_affinity_count = choice.best_non_preferred_affinity_count;
  result.reason = explain_merged_hint_choice(choice, numa, order);
  return result;
}

}  // namespace numaplace

// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/hints/best_effort_policy.h"

#include "placement/hints/merged_hint_result.h"

namespace numaplace {

HintMergeResult merge_with_best_effort_policy(const std::vector<HintList>& lists, const NumaInfo& numa,
                                              const MergeOptions& options) {
  HintMergeResult result = merged_hint_result(lists, numa, options, TopologyPolicy::BestEffort);
  result.admit = true;
  return result;
}

}  // namespace numaplace

// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/hints/restricted_policy.h"

#include "placement/hints/merged_hint_result.h"

namespace numaplace {

HintMergeResult merge_with_restricted_policy(const std::vector<HintList>& lists, const NumaInfo& numa,
                                             const MergeOptions& options) {
  HintMergeResult result = merged_hint_result(lists, numa, options, TopologyPolicy::Restricted);
  result.admit = result.hint.preferred;
  if (!result.admit) result.reason += "; policy restricted refuses a non-preferred alignment";
  return result;
}

}  // namespace numaplace

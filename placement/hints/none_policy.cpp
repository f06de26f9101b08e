// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/hints/none_policy.h"

namespace numaplace {

HintMergeResult merge_with_none_policy() {
  HintMergeResult result;
  result.hint = TopologyHint{std::nullopt, false};
  result.admit = true;
  result.reason = "policy none: no NUMA alignment is attempted";
  return result;
}

}  // namespace numaplace

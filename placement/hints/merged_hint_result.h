/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The step every merging policy shares: choose the best merged hint of `lists` (with
// the mask order the policy and options call for), fall back to {all nodes, not
// preferred} when none has a node, and say why. Admission is left to the policy.
#pragma once

#include <vector>

#include "placement/hints/numa_info.h"
#include "placement/hints/topology_policy.h"

namespace numaplace {

HintMergeResult merged_hint_result(const std::vector<HintList>& lists, const NumaInfo& numa,
                                   const MergeOptions& options, TopologyPolicy policy);

}  // namespace numaplace

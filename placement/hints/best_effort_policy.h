/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Policy best-effort: the best merged hint of all resources' hint lists (preferred if
// any alignment is, else the best non-preferred one, else all nodes); always admitted.
#pragma once

#include <vector>

#include "placement/hints/numa_info.h"
#include "placement/hints/topology_policy.h"

namespace numaplace {

HintMergeResult merge_with_best_effort_policy(const std::vector<HintList>& lists, const NumaInfo& numa,
                                              const MergeOptions& options);

}  // namespace numaplace

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Policy restricted: the same merged hint as best-effort, admitted only when it is
// preferred (every resource aligned at its narrowest).
#pragma once

#include <vector>

#include "placement/hints/numa_info.h"
#include "placement/hints/topology_policy.h"

namespace numaplace {

HintMergeResult merge_with_restricted_policy(const std::vector<HintList>& lists, const NumaInfo& numa,
                                             const MergeOptions& options);

}  // namespace numaplace

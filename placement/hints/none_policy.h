/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Policy none: no NUMA alignment; the guest floats over the whole host. The result
// carries no affinity, is not preferred, and is always admitted.
#pragma once

#include "placement/hints/topology_policy.h"

namespace numaplace {

HintMergeResult merge_with_none_policy();

}  // namespace numaplace

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The TopologyManager policies, the options of a merge, and what a merge answers.
// none: no alignment, always admitted. best-effort: the best merged hint, always
// admitted. restricted: the same hint, admitted only when preferred.
// single-numa-node: only one-node preferred hints (and "any, preferred") take part;
// a result spanning all nodes reads as "any"; admitted only when preferred.
// max_allowable_numa_nodes refuses hosts with more nodes (the kubelet's guard, 8 by
// default there); here the merge does not enumerate, so the default is 64.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "placement/model/error.h"
#include "placement/hints/topology_hint.h"

namespace numaplace {

enum class TopologyPolicy { None, BestEffort, Restricted, SingleNumaNode };

// "none", "best-effort", "restricted", "single-numa-node".
Result<TopologyPolicy> topology_policy_from_name(std::string_view name);
std::string_view topology_policy_name(TopologyPolicy policy);

// Fast finds the winner without enumerating every combination of hints; Enumerate
// walks the full cross product as the kubelet does (a reference, exponential).
enum class MergeAlgorithm { Fast, Enumerate };

struct MergeOptions {
  bool prefer_closest_numa_nodes = false;
  int max_allowable_numa_nodes = static_cast<int>(kMaxNumaNodes);
  MergeAlgorithm algorithm = MergeAlgorithm::Fast;
};

struct HintMergeResult {
  TopologyHint hint;   // affinity absent: no confinement (policy none, or single-numa-node over all nodes)
  bool admit = false;  // whether the policy admits the guest with this hint
  int best_non_preferred_affinity_count = 0;
  std::string reason;  // a sentence on why this hint won (or why none did)
};

}  // namespace numaplace

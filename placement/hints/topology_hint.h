/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A topology hint: the NUMA nodes a resource could be served from (its affinity)
// and whether that alignment is preferred (for a provider, preferred marks the masks
// of minimal width). An absent affinity means "any node will do" (the kubelet's nil
// mask). A provider reports its hints per resource: an absent list means the
// resource has no NUMA preference, an empty list that no alignment can satisfy it,
// and a provider with no resources at all has no preference.
// hint_lists_from_providers() turns those into one list per resource, the input of
// the merge (see merge_hints.h): absent list -> [{any, preferred}], empty list ->
// [{any, not preferred}], provider without resources -> [{any, preferred}].
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "placement/hints/numa_node_mask.h"

namespace numaplace {

struct TopologyHint {
  std::optional<NumaNodeMask> affinity;  // absent: any NUMA node
  bool preferred = false;

  friend bool operator==(const TopologyHint&, const TopologyHint&) = default;
};

// One list of alternative hints for one resource (or one provider without resources).
using HintList = std::vector<TopologyHint>;

// A provider's hints per resource name; std::nullopt = no preference for that resource.
using ProviderHints = std::map<std::string, std::optional<HintList>>;

std::vector<HintList> hint_lists_from_providers(const std::vector<ProviderHints>& providers);

}  // namespace numaplace

// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/hints/topology_policy.h"

namespace numaplace {

Result<TopologyPolicy> topology_policy_from_name(std::string_view name) {
  if (name == "none") return TopologyPolicy::None;
  if (name == "best-effort") return TopologyPolicy::BestEffort;
  if (name == "restricted") return TopologyPolicy::Restricted;
  if (name == "single-numa-node") return TopologyPolicy::SingleNumaNode;
  return make_error("UnknownTopologyPolicy", "unknown topology policy '" + std::string(name) +
                                                 "'; known: none, best-effort, restricted, single-numa-node");
}

std::string_view topology_policy_name(TopologyPolicy policy) {
  switch (policy) {
    case TopologyPolicy::None: return "none";
    case TopologyPolicy::BestEffort: return "best-effort";
    case TopologyPolicy::Restricted: return "restricted";
    case TopologyPolicy::SingleNumaNode: return "single-numa-node";
  }
  return "unknown";
}

}  // namespace numaplace

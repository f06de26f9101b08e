/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Network NUMA affinity, as Nova 26 models it (NetworkMetadata): the physical networks
// (physnets) a NUMA cell is close to and whether tunneled (overlay) networks are, or, on the
// request side, the physnets and tunneled networks a guest's ports use. A host cell without
// any says nothing (Nova's cell without network_metadata behaves the same as an empty one).
// The rule that joins the two is in placement/fit/network_demands.h.
#pragma once

#include <string>
#include <vector>

namespace numaplace {

struct NetworkAffinity {
  std::vector<std::string> physnets;  // ascending, without repeats (readers keep it so)
  bool tunneled = false;

  bool empty() const { return physnets.empty() && !tunneled; }
};

}  // namespace numaplace

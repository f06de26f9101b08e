// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/hints/merge_explanation.h"

namespace numaplace {

std::string explain_merged_hint_choice(const MergedHintChoice& choice, const NumaInfo& numa, MaskOrder order) {
  const std::string mask_order = order == MaskOrder::Closest ? "the narrowest, then closest," : "the narrowest";
  if (!choice.best) {
    return "no combination of the resources' hints leaves a NUMA node in common; falling back to all nodes (" +
           numa.all_nodes().to_nodeset() + "), not preferred";
  }
  const std::string nodes = "NUMA nodes " + choice.best->affinity->to_nodeset();
  if (choice.best->preferred) {
    return nodes + " is " + mask_order + " alignment that every resource prefers";
  }
  return "no alignment is preferred by every resource; " + nodes +
         " is the best non-preferred mask: the widest minimum any single resource needs is " +
         std::to_string(choice.best_non_preferred_affinity_count) +
         " node(s), and masks as close to that from below win, then " + mask_order + " one";
}

}  // namespace numaplace

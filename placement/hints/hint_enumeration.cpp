// SPDX-License-Identifier: LGPL-2.1-or-later
// The reference merge: every combination of one hint per list, compared one by one
// exactly as the kubelet's HintMerger does. Exponential; kept as the yardstick the
// fast merge is tested and benchmarked against.
#include "placement/hints/hint_merger.h"

namespace numaplace {
namespace {

TopologyHint merge_combination(const std::vector<const TopologyHint*>& combination, NumaNodeMask all_nodes) {
  bool preferred = true;
  NumaNodeMask affinity = all_nodes;
  const NumaNodeMask* first_affinity = nullptr;
  for (const TopologyHint* hint : combination) {
    if (hint->affinity) {
      if (first_affinity == nullptr) first_affinity = &*hint->affinity;
      if (*hint->affinity != *first_affinity) preferred = false;
      affinity = affinity & *hint->affinity;
    }
    if (!hint->preferred) preferred = false;
  }
  return TopologyHint{affinity, preferred};
}

}  // namespace

MergedHintChoice choose_merged_hint_by_enumeration(const std::vector<HintList>& lists, const NumaInfo& numa,
                                                   MaskOrder order) {
  MergedHintChoice choice;
  choice.best_non_preferred_affinity_count = best_non_preferred_affinity_count(lists);
  std::optional<TopologyHint> best;
  std::vector<const TopologyHint*> combination(lists.size());
  auto visit = [&](auto&& self, std::size_t list_index) -> void {
    if (list_index == lists.size()) {
      TopologyHint merged = merge_combination(combination, numa.all_nodes());
      const TopologyHint* current = best ? &*best : nullptr;
      if (better_merged_hint(current, &merged, choice.best_non_preferred_affinity_count, order, numa) == &merged) {
        best = merged;
      }
      return;
    }
    for (const TopologyHint& hint : lists[list_index]) {
      combination[list_index] = &hint;
      self(self, list_index + 1);
    }
  };
  visit(visit, 0);
  choice.best = best;
  return choice;
}

}  // namespace numaplace

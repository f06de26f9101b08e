// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/hints/hint_ranking.h"

#include <algorithm>

namespace numaplace {

bool mask_beats(NumaNodeMask candidate, NumaNodeMask current, MaskOrder order, const NumaInfo& numa) {
  if (candidate == current) return false;
  if (order == MaskOrder::Closest && candidate.count() == current.count()) {
    const double candidate_distance = numa.mean_distance(candidate);
    const double current_distance = numa.mean_distance(current);
    if (candidate_distance != current_distance) return candidate_distance < current_distance;
    return candidate.bits() < current.bits();
  }
  return candidate.is_narrower_than(current);
}

int best_non_preferred_affinity_count(const std::vector<HintList>& lists) {
  int best = 0;
  for (const HintList& list : lists) {
    int narrowest = -1;
    for (const TopologyHint& hint : list) {
      if (!hint.affinity) continue;
      if (narrowest < 0 || hint.affinity->count() < narrowest) narrowest = hint.affinity->count();
      if (narrowest <= best) break;  // this list cannot raise the maximum any more
    }
    best = std::max(best, narrowest);
  }
  return best;
}

const TopologyHint* better_merged_hint(const TopologyHint* current, const TopologyHint* candidate,
                                       int best_non_preferred_count, MaskOrder order, const NumaInfo& numa) {
  const int candidate_count = candidate->affinity->count();
  if (candidate_count == 0) return current;
  if (current == nullptr) return candidate;
  if (current->preferred != candidate->preferred) return candidate->preferred ? candidate : current;
  auto better_mask = [&]() { return mask_beats(*candidate->affinity, *current->affinity, order, numa) ? candidate : current; };
  if (current->preferred) return better_mask();

  const int current_count = current->affinity->count();
  const int target = best_non_preferred_count;
  if (current_count > target) return better_mask();                      // 1: anything narrower is closer
  if (current_count == target) return candidate_count == target ? better_mask() : current;  // 2
  if (candidate_count > target) return current;                          // 3a: never wider than needed
  if (candidate_count == target) return candidate;                       // 3b
  if (candidate_count < current_count) return current;                   // 3ca
  if (candidate_count > current_count) return candidate;                 // 3cb
  return better_mask();                                                  // 3cc
}

}  // namespace numaplace

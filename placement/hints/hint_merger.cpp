// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/hints/hint_merger.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

namespace numaplace {
namespace {

// Up to this many nodes the reachable masks may be tracked as a dense table of 2^n entries.
constexpr int kMaxDenseNodes = 20;

std::uint64_t low_bits(int count) { return count >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << count) - 1; }

// The host's nodes packed onto positions 0..n-1 in ascending id order, so that masks
// over the host's nodes index a dense table. Packing keeps the order of mask values.
class PackedNodes {
 public:
  explicit PackedNodes(NumaNodeMask all_nodes)
      : all_nodes_(all_nodes), count_(all_nodes.count()), identity_(all_nodes.bits() == low_bits(count_)) {
    for (std::uint32_t node : all_nodes.nodes()) ids_.push_back(node);
  }
  int count() const { return count_; }
  std::uint64_t full() const { return low_bits(count_); }

  // The packed form of `affinity` within the host (absent affinity: every node).
  std::uint64_t pack(const std::optional<NumaNodeMask>& affinity) const {
    if (!affinity) return full();
    const std::uint64_t bits = (*affinity & all_nodes_).bits();
    if (identity_) return bits;
    std::uint64_t packed = 0;
    for (int position = 0; position < count_; ++position) {
      if ((bits >> ids_[position]) & 1U) packed |= std::uint64_t{1} << position;
    }
    return packed;
  }
  NumaNodeMask unpack(std::uint64_t packed) const {
    if (identity_) return NumaNodeMask::from_bits(packed);
    std::uint64_t bits = 0;
    for (std::uint64_t rest = packed; rest != 0; rest &= rest - 1) {
      bits |= std::uint64_t{1} << ids_[std::countr_zero(rest)];
    }
    return NumaNodeMask::from_bits(bits);
  }

 private:
  NumaNodeMask all_nodes_;
  int count_;
  bool identity_;
  std::vector<std::uint32_t> ids_;
};

// Same order as mask_beats, with the integer distance sum standing in for the mean
// (both masks have as many nodes, so the means compare as the sums do).
bool beats(NumaNodeMask candidate, NumaNodeMask current, MaskOrder order, const NumaInfo& numa) {
  if (candidate.count() != current.count()) return candidate.count() < current.count();
  if (order == MaskOrder::Closest) {
    const std::uint64_t candidate_sum = numa.distance_sum(candidate);
    const std::uint64_t current_sum = numa.distance_sum(current);
    if (candidate_sum != current_sum) return candidate_sum < current_sum;
  }
  return candidate.bits() < current.bits();
}

// The best preferred merged hint's affinity, if any has a node. A combination is
// preferred only when every chosen hint is preferred and every chosen affinity is the
// same mask m (or "any"): so m must be preferred by every list that does not offer
// {any, preferred}; with all lists offering it, "all nodes" and any single preferred
// mask qualify too.
std::optional<NumaNodeMask> best_preferred_affinity(const std::vector<HintList>& lists, const NumaInfo& numa,
                                                    MaskOrder order) {
  std::optional<NumaNodeMask> best;
  auto consider = [&](NumaNodeMask raw) {
    const NumaNodeMask merged = raw & numa.all_nodes();
    if (merged.empty()) return;
    if (!best || beats(merged, *best, order, numa)) best = merged;
  };
  auto preferred_masks = [](const HintList& list) {
    std::vector<std::uint64_t> masks;
    for (const TopologyHint& hint : list) {
      if (hint.preferred && hint.affinity) masks.push_back(hint.affinity->bits());
    }
    return masks;
  };
  auto indifferent = [](const HintList& list) {
    return std::any_of(list.begin(), list.end(), [](const TopologyHint& h) { return h.preferred && !h.affinity; });
  };

  std::vector<std::size_t> demanding;  // lists without {any, preferred}
  for (std::size_t i = 0; i < lists.size(); ++i) {
    if (!indifferent(lists[i])) demanding.push_back(i);
  }
  if (demanding.empty()) {
    consider(numa.all_nodes());
    for (const HintList& list : lists) {
      for (std::uint64_t mask : preferred_masks(list)) consider(NumaNodeMask::from_bits(mask));
    }
    return best;
  }

  // Candidates: the preferred masks of the demanding list with the fewest of them,
  // kept while every other demanding list prefers them too.
  std::vector<std::vector<std::uint64_t>> preferred(demanding.size());
  std::size_t fewest = 0;
  for (std::size_t d = 0; d < demanding.size(); ++d) {
    preferred[d] = preferred_masks(lists[demanding[d]]);
    if (preferred[d].size() < preferred[fewest].size()) fewest = d;
  }
  std::vector<std::uint64_t> candidates = preferred[fewest];
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::vector<std::uint32_t> lists_preferring(candidates.size(), 1);
  std::vector<std::uint32_t> last_list(candidates.size(), static_cast<std::uint32_t>(fewest));
  for (std::size_t d = 0; d < demanding.size() && !candidates.empty(); ++d) {
    if (d == fewest) continue;
    for (std::uint64_t mask : preferred[d]) {
      auto found = std::lower_bound(candidates.begin(), candidates.end(), mask);
      if (found == candidates.end() || *found != mask) continue;
      const std::size_t index = static_cast<std::size_t>(found - candidates.begin());
      if (last_list[index] != d) {
        last_list[index] = static_cast<std::uint32_t>(d);
        ++lists_preferring[index];
      }
    }
  }
  for (std::size_t index = 0; index < candidates.size(); ++index) {
    if (lists_preferring[index] == demanding.size()) consider(NumaNodeMask::from_bits(candidates[index]));
  }
  return best;
}

// Superset sums over the packed node subsets: table[x] becomes the sum of table[y]
// over all y containing x (zeta), or its inverse (Moebius). Arithmetic is modulo 2^64.
// The three lowest bits are done per block of 8 entries; the others in runs long
// enough for the compiler to vectorise.
template <typename Combine>
void superset_transform(std::vector<std::uint64_t>& table, Combine combine) {
  const std::size_t size = table.size();
  std::size_t bit = 1;
  if (size >= 8) {
    for (std::size_t base = 0; base < size; base += 8) {
      std::uint64_t* block = &table[base];
      for (std::size_t low = 1; low < 8; low <<= 1) {
        for (std::size_t x = 0; x < 8; ++x) {
          if ((x & low) == 0) combine(block[x], block[x + low]);
        }
      }
    }
    bit = 8;
  }
  for (; bit < size; bit <<= 1) {
    for (std::size_t base = 0; base < size; base += bit << 1) {
      std::uint64_t* lower = &table[base];
      const std::uint64_t* upper = &table[base + bit];
      for (std::size_t x = 0; x < bit; ++x) combine(lower[x], upper[x]);
    }
  }
}
void superset_zeta(std::vector<std::uint64_t>& table) {
  superset_transform(table, [](std::uint64_t& subset, std::uint64_t superset) { subset += superset; });
}
void superset_moebius(std::vector<std::uint64_t>& table) {
  superset_transform(table, [](std::uint64_t& subset, std::uint64_t superset) { subset -= superset; });
}

// The distinct packed affinities of a list; `stamp` (dense tables only) avoids sorting.
std::vector<std::uint64_t> distinct_packed(const HintList& list, const PackedNodes& packed,
                                           std::vector<std::uint32_t>* stamp, std::uint32_t* stamp_value) {
  std::vector<std::uint64_t> masks;
  masks.reserve(list.size());
  if (stamp != nullptr) {
    const std::uint32_t mark = ++*stamp_value;
    for (const TopologyHint& hint : list) {
      const std::uint64_t mask = packed.pack(hint.affinity);
      if ((*stamp)[mask] != mark) {
        (*stamp)[mask] = mark;
        masks.push_back(mask);
      }
    }
    return masks;
  }
  for (const TopologyHint& hint : list) masks.push_back(packed.pack(hint.affinity));
  std::sort(masks.begin(), masks.end());
  masks.erase(std::unique(masks.begin(), masks.end()), masks.end());
  return masks;
}

// Every mask (packed) that some combination of one hint per list ANDs to.
// Sparse while |reachable| x |list| is small; on hosts of up to kMaxDenseNodes nodes it
// switches to counting, for every node subset x, the combinations whose AND contains
// x (a product of per-list superset counts), then inverts to "whose AND is exactly x".
// The counts are exact while the product of the list sizes stays below 2^64; past that
// the table is reduced to 0/1 and the product restarts.
std::vector<std::uint64_t> reachable_masks(const std::vector<HintList>& lists, const PackedNodes& packed) {
  const int node_count = packed.count();
  const bool dense_allowed = node_count <= kMaxDenseNodes;
  const std::size_t table_size = dense_allowed ? std::size_t{1} << node_count : 0;
  std::vector<std::uint32_t> stamp(table_size, 0);
  std::uint32_t stamp_value = 0;
  std::vector<std::uint32_t>* stamp_table = dense_allowed ? &stamp : nullptr;
  const double dense_step_cost = static_cast<double>(node_count) * static_cast<double>(table_size);

  std::vector<std::uint64_t> reachable{packed.full()};
  std::vector<std::uint64_t> counts;       // dense mode: product of superset counts
  std::vector<std::uint64_t> list_counts;  // dense mode: one list's indicator, then superset counts
  std::uint64_t count_bound = 0;           // dense mode: an upper bound on every exact count
  bool dense = false;

  // Multiplies the list in `list_counts` (an indicator of `distinct` masks) into `counts`.
  auto multiply_in = [&](std::uint64_t distinct) {
    if (count_bound > std::numeric_limits<std::uint64_t>::max() / distinct) {
      superset_moebius(counts);  // exact counts -> 0/1 -> superset form again
      count_bound = 0;
      for (std::uint64_t& value : counts) {
        value = value != 0;
        count_bound += value;
      }
      superset_zeta(counts);
    }
    superset_zeta(list_counts);
    for (std::size_t x = 0; x < table_size; ++x) counts[x] *= list_counts[x];
    count_bound *= distinct;
  };

  for (const HintList& list : lists) {
    if (dense) {
      list_counts.assign(table_size, 0);
      std::uint64_t distinct = 0;
      for (const TopologyHint& hint : list) {
        std::uint64_t& seen = list_counts[packed.pack(hint.affinity)];
        distinct += seen == 0;
        seen = 1;
      }
      if (distinct == 1 && list_counts[packed.full()] == 1) continue;  // "any" changes nothing
      multiply_in(distinct);
      continue;
    }
    const std::vector<std::uint64_t> masks = distinct_packed(list, packed, stamp_table, &stamp_value);
    if (masks.size() == 1 && masks.front() == packed.full()) continue;
    const bool too_big = dense_allowed && static_cast<double>(reachable.size()) * static_cast<double>(masks.size()) >
                                              dense_step_cost;
    if (too_big) {
      dense = true;
      counts.assign(table_size, 0);
      for (std::uint64_t r : reachable) counts[r] = 1;
      count_bound = reachable.size();
      superset_zeta(counts);
      list_counts.assign(table_size, 0);
      for (std::uint64_t m : masks) list_counts[m] = 1;
      multiply_in(masks.size());
      continue;
    }
    std::vector<std::uint64_t> next;
    if (stamp_table != nullptr) {
      const std::uint32_t mark = ++stamp_value;
      for (std::uint64_t r : reachable) {
        for (std::uint64_t m : masks) {
          const std::uint64_t merged = r & m;
          if (stamp[merged] != mark) {
            stamp[merged] = mark;
            next.push_back(merged);
          }
        }
      }
    } else {
      next.reserve(reachable.size() * masks.size());
      for (std::uint64_t r : reachable) {
        for (std::uint64_t m : masks) next.push_back(r & m);
      }
      std::sort(next.begin(), next.end());
      next.erase(std::unique(next.begin(), next.end()), next.end());
    }
    reachable = std::move(next);
  }
  if (!dense) return reachable;
  superset_moebius(counts);
  reachable.clear();
  for (std::size_t x = 0; x < table_size; ++x) {
    if (counts[x] != 0) reachable.push_back(x);
  }
  return reachable;
}

// The best non-preferred affinity among the reachable masks: the node count equal to
// the target if reachable, else the largest below it, else the smallest above it;
// then the better mask of that count.
std::optional<NumaNodeMask> best_non_preferred_affinity(const std::vector<std::uint64_t>& reachable,
                                                        const PackedNodes& packed, int target, MaskOrder order,
                                                        const NumaInfo& numa) {
  std::vector<bool> count_reachable(static_cast<std::size_t>(packed.count()) + 1, false);
  for (std::uint64_t mask : reachable) count_reachable[static_cast<std::size_t>(count_bits(mask))] = true;
  int chosen = -1;
  if (target >= 1 && target <= packed.count() && count_reachable[static_cast<std::size_t>(target)]) chosen = target;
  for (int count = std::min(target - 1, packed.count()); chosen < 0 && count >= 1; --count) {
    if (count_reachable[static_cast<std::size_t>(count)]) chosen = count;
  }
  for (int count = std::max(target + 1, 1); chosen < 0 && count <= packed.count(); ++count) {
    if (count_reachable[static_cast<std::size_t>(count)]) chosen = count;
  }
  if (chosen < 0) return std::nullopt;
  std::optional<NumaNodeMask> best;
  for (std::uint64_t mask : reachable) {
    if (count_bits(mask) != chosen) continue;
    const NumaNodeMask affinity = packed.unpack(mask);
    if (!best || beats(affinity, *best, order, numa)) best = affinity;
  }
  return best;
}

}  // namespace

MergedHintChoice choose_merged_hint(const std::vector<HintList>& lists, const NumaInfo& numa, MaskOrder order) {
  MergedHintChoice choice;
  choice.best_non_preferred_affinity_count = best_non_preferred_affinity_count(lists);
  for (const HintList& list : lists) {
    if (list.empty()) return choice;  // no combination at all
  }
  if (auto preferred = best_preferred_affinity(lists, numa, order)) {
    choice.best = TopologyHint{*preferred, true};
    return choice;
  }
  const PackedNodes packed(numa.all_nodes());
  if (auto affinity = best_non_preferred_affinity(reachable_masks(lists, packed), packed,
                                                  choice.best_non_preferred_affinity_count, order, numa)) {
    choice.best = TopologyHint{*affinity, false};
  }
  return choice;
}

MergedHintChoice choose_merged_hint(const std::vector<HintList>& lists, const NumaInfo& numa, MaskOrder order,
                                    MergeAlgorithm algorithm) {
  return algorithm == MergeAlgorithm::Enumerate ? choose_merged_hint_by_enumeration(lists, numa, order)
                                                : choose_merged_hint(lists, numa, order);
}

}  // namespace numaplace

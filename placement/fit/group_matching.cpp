// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/fit/group_matching.h"

#include <algorithm>

namespace numaplace {

void GroupMatching::reset(std::size_t groups, std::size_t positions) {
  groups_ = groups;
  positions_ = positions;
  values_.assign(groups * positions, kNotAllowed);
  items_.assign(groups, 0);
}

bool GroupMatching::allow(std::size_t group, std::size_t position, std::int64_t value) {
  if (value > kMaxValue || value < -kMaxValue) return false;
  values_[group * positions_ + position] = value;
  return true;
}

// Each step places one more item along the path of best gain: some group short of its items
// takes a position from a second group, which takes one from a third, ..., and the last takes a
// free position. With no path of positive gain round a cycle (true of the empty placement, and
// kept by every best path), each step leaves the best placement of that many items, so the last
// is the best of all (successive shortest paths). Paths are found by Bellman-Ford over the
// groups: an edge i -> j is a position j holds that i may take, its gain i's value there less j's.
std::optional<std::int64_t> GroupMatching::best() {
  if (groups_ + positions_ > kMaxSize) return std::nullopt;
  std::size_t total_items = 0;
  for (std::size_t items : items_) total_items += items;
  if (total_items > positions_) return std::nullopt;
  placed_.assign(groups_, 0);
  owner_.assign(positions_, kNone);
  reach_.resize(groups_);
  via_group_.resize(groups_);
  via_position_.resize(groups_);
  std::int64_t total = 0;
  for (std::size_t step = 0; step < total_items; ++step) {
    for (std::size_t i = 0; i < groups_; ++i) {
      reach_[i] = placed_[i] < items_[i] ? 0 : kUnreached;
      via_group_[i] = kNone;
    }
    for (std::size_t round = 0; round < groups_; ++round) {
      bool changed = false;
      for (std::size_t p = 0; p < positions_; ++p) {
        const std::size_t j = owner_[p];
        if (j == kNone) continue;
        for (std::size_t i = 0; i < groups_; ++i) {
          if (i == j || reach_[i] == kUnreached || value(i, p) == kNotAllowed) continue;
          const std::int64_t gain = reach_[i] + value(i, p) - value(j, p);
          if (reach_[j] == kUnreached || gain > reach_[j]) {
            reach_[j] = gain;
            via_group_[j] = i;
            via_position_[j] = p;
            changed = true;
          }
        }
      }
      if (!changed) break;
    }
    std::size_t end_group = kNone;
    std::size_t end_position = kNone;
    std::int64_t end_gain = 0;
    for (std::size_t p = 0; p < positions_; ++p) {
      if (owner_[p] != kNone) continue;
      for (std::size_t i = 0; i < groups_; ++i) {
        if (reach_[i] == kUnreached || value(i, p) == kNotAllowed) continue;
        const std::int64_t gain = reach_[i] + value(i, p);
        if (end_group == kNone || gain > end_gain) {
          end_group = i;
          end_position = p;
          end_gain = gain;
        }
      }
    }
    if (end_group == kNone) return std::nullopt;
    owner_[end_position] = end_group;
    std::size_t short_group = end_group;  // the group that gained a position and may have lost one
    // The path's groups are distinct (strict gains and no gaining cycle): at most groups_ - 1 hops.
    for (std::size_t hop = 0; hop < groups_ && via_group_[short_group] != kNone; ++hop) {
      const std::size_t taker = via_group_[short_group];
      owner_[via_position_[short_group]] = taker;
      short_group = taker;
    }
    ++placed_[short_group];
    total += end_gain;
  }
  return total;
}

// The dual of the placement: a price u per group, w >= 0 per position, u(i) + w(p) >= value(i, p)
// wherever i may take p, with equality where the placement puts i on p and w(p) = 0 where it
// leaves p free (so that the dual's total, the sum of items x u plus the sum of w, equals the
// placement's). Those conditions bound each u from below: u(i) >= value(i, p) for a free p, and
// u(i) >= u(j) + value(i, p) - value(j, p) for a p that group j holds. Their least solution
// (longest paths over the groups, no gaining cycle at a best placement) is an optimal dual; a
// group no bound reaches starts from a floor below every value, so its positions cost the most.
void GroupMatching::price() {
  const std::int64_t floor = -2 * kMaxValue * static_cast<std::int64_t>(groups_ + 1);
  group_price_.assign(groups_, floor);
  for (std::size_t p = 0; p < positions_; ++p) {
    if (owner_[p] != kNone) continue;
    for (std::size_t i = 0; i < groups_; ++i) {
      if (value(i, p) != kNotAllowed) group_price_[i] = std::max(group_price_[i], value(i, p));
    }
  }
  for (std::size_t round = 0; round <= groups_; ++round) {
    bool changed = false;
    for (std::size_t p = 0; p < positions_; ++p) {
      const std::size_t j = owner_[p];
      if (j == kNone) continue;
      for (std::size_t i = 0; i < groups_; ++i) {
        if (i == j || value(i, p) == kNotAllowed) continue;
        const std::int64_t bound = group_price_[j] + value(i, p) - value(j, p);
        if (bound > group_price_[i]) {
          group_price_[i] = bound;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  position_price_.assign(positions_, 0);
  for (std::size_t p = 0; p < positions_; ++p) {
    if (owner_[p] != kNone) position_price_[p] = value(owner_[p], p) - group_price_[owner_[p]];
  }
}

bool GroupMatching::may_take_at_best(std::size_t group, std::size_t position) const {
  if (value(group, position) == kNotAllowed) return false;
  return group_price_[group] + position_price_[position] == value(group, position);
}

}  // namespace numaplace

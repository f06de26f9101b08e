/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The best total value of placing groups of identical items on distinct positions: group i puts
// exactly its count of items on positions it may take, one item a position at most, an item of
// group i on position p worth value(i, p). Exact: successive best augmenting paths (the min-cost
// flow of a transportation problem, its paths walked over the groups), in
// O(items x groups^2 x positions). Its prices (an optimal dual) then say which positions a best
// placement may or must use. The scored search (best_assignment.h) bounds a node whose guest
// cells have several shapes with both: bounds per shape may count one position for two shapes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace numaplace {

class GroupMatching {
 public:
  // What a group may not take.
  static constexpr std::int64_t kNotAllowed = std::numeric_limits<std::int64_t>::min();
  // Values beyond +-kMaxValue, or more than kMaxSize groups plus positions, could overflow the
  // path sums: allow() and best() refuse them (the caller bounds otherwise).
  static constexpr std::int64_t kMaxValue = std::numeric_limits<std::int64_t>::max() / 4096;
  static constexpr std::size_t kMaxSize = 1024;

  // A problem of `groups` groups over `positions` positions, nothing allowed yet, no items.
  // Keeps its buffers' capacity from one problem to the next.
  void reset(std::size_t groups, std::size_t positions);
  // Group `group` may take `position`, an item there worth `value`; false (nothing set) when
  // |value| > kMaxValue.
  bool allow(std::size_t group, std::size_t position, std::int64_t value);
  // Group `group` places `items` items.
  void set_items(std::size_t group, std::size_t items) { items_[group] = items; }

  // The largest total over placements of every group's items on distinct allowed positions, or
  // nullopt when every item cannot be placed (or the problem exceeds kMaxSize).
  std::optional<std::int64_t> best();

  // After best() found a placement: the group it puts on `position`, or kNoGroup for none.
  static constexpr std::size_t kNoGroup = std::numeric_limits<std::size_t>::max();
  std::size_t group_at(std::size_t position) const { return owner_[position]; }

  // After best() found a placement, prices of an optimal dual of it (the least group prices; a
  // position's price is what its item is worth over its group's price, 0 for a free position),
  // from which two facts about every best placement follow (complementary slackness):
  void price();
  // Some best placement may put an item of `group` on `position` (its reduced cost is 0); false:
  // none does.
  bool may_take_at_best(std::size_t group, std::size_t position) const;
  // Every best placement uses `position` (its price is positive).
  bool used_by_every_best(std::size_t position) const { return position_price_[position] > 0; }

 private:
  std::int64_t value(std::size_t group, std::size_t position) const { return values_[group * positions_ + position]; }

  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  static constexpr std::int64_t kUnreached = std::numeric_limits<std::int64_t>::min();
  std::size_t groups_ = 0;
  std::size_t positions_ = 0;
  std::vector<std::int64_t> values_;      // [group * positions + position]
  std::vector<std::size_t> items_;        // per group
  std::vector<std::size_t> placed_;       // per group: items on a position so far
  std::vector<std::size_t> owner_;        // per position: its group, or kNone
  std::vector<std::int64_t> reach_;       // per group: best gain of a path that leaves it one short
  std::vector<std::size_t> via_group_;    // per group: the path's group before it, or kNone (a start)
  std::vector<std::size_t> via_position_; // ... and the position that group took from it
  std::vector<std::int64_t> group_price_;   // price(): per group
  std::vector<std::int64_t> position_price_;// price(): per position
};

}  // namespace numaplace

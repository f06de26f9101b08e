// SPDX-License-Identifier: LGPL-2.1-or-later
// GroupMatching (group_matching.h) is exact: on random problems of up to 4 groups and 7 positions,
// values positive and negative, some pairs not allowed, its total is the best a walk written here
// finds over every way of giving each position to one group or none (each group ending with
// exactly its items), and it says "no placement" exactly when that walk finds none. Also its
// refusals: values out of range, and more items than positions.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <vector>

#include "placement/fit/group_matching.h"

namespace numaplace {
namespace {

struct Problem {
  std::vector<std::vector<std::optional<std::int64_t>>> values;  // [group][position], nullopt: not allowed
  std::vector<std::size_t> items;
};

// Every position to one group or none, in turn; a complete walk keeps the best total.
std::optional<std::int64_t> walk_every_placement(const Problem& problem) {
  const std::size_t groups = problem.items.size();
  const std::size_t positions = problem.values.empty() ? 0 : problem.values[0].size();
  std::vector<std::size_t> left = problem.items;
  std::optional<std::int64_t> best;
  auto walk = [&](auto&& self, std::size_t p, std::int64_t total) -> void {
    if (p == positions) {
      for (std::size_t n : left) {
        if (n != 0) return;
      }
      if (!best || total > *best) best = total;
      return;
    }
    self(self, p + 1, total);  // p stays free
    for (std::size_t g = 0; g < groups; ++g) {
      if (left[g] == 0 || !problem.values[g][p]) continue;
      --left[g];
      self(self, p + 1, total + *problem.values[g][p]);
      ++left[g];
    }
  };
  walk(walk, 0, 0);
  return best;
}

// Up to 4 groups of 0-2 items over 1-7 positions, values within +-`small_spread` (many ties) or
// +-1000, one pair in five not allowed; nullopt when the items outnumber the positions.
std::optional<Problem> random_problem(std::mt19937& rng, int small_spread) {
  Problem problem;
  const std::size_t groups = 1 + rng() % 4;
  const std::size_t positions = 1 + rng() % 7;
  const int spread = rng() % 2 ? small_spread : 1000;
  problem.values.assign(groups, std::vector<std::optional<std::int64_t>>(positions));
  problem.items.assign(groups, 0);
  std::size_t total_items = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    problem.items[g] = rng() % 3;
    total_items += problem.items[g];
    for (std::size_t p = 0; p < positions; ++p) {
      if (rng() % 5 != 0) problem.values[g][p] = static_cast<std::int64_t>(rng() % (2 * spread + 1)) - spread;
    }
  }
  if (total_items > positions) return std::nullopt;
  return problem;
}

void load(GroupMatching& matching, const Problem& problem) {
  const std::size_t groups = problem.items.size();
  const std::size_t positions = problem.values[0].size();
  matching.reset(groups, positions);
  for (std::size_t g = 0; g < groups; ++g) {
    matching.set_items(g, problem.items[g]);
    for (std::size_t p = 0; p < positions; ++p) {
      if (problem.values[g][p]) {
        ASSERT_TRUE(matching.allow(g, p, *problem.values[g][p]));
      }
    }
  }
}

TEST(GroupMatching, EqualsAWalkOverEveryPlacementOnRandomProblems) {
  std::mt19937 rng(20261202);
  GroupMatching matching;  // one object for every problem: reset must forget the one before
  int placed = 0;
  int refused = 0;
  for (int round = 0; round < 4000; ++round) {
    const std::optional<Problem> drawn = random_problem(rng, 10);
    if (!drawn) continue;
    const Problem& problem = *drawn;
    load(matching, problem);
    if (::testing::Test::HasFatalFailure()) return;
    const std::optional<std::int64_t> want = walk_every_placement(problem);
    const std::optional<std::int64_t> got = matching.best();
    ASSERT_EQ(got.has_value(), want.has_value()) << "round " << round;
    if (want) {
      EXPECT_EQ(*got, *want) << "round " << round;
      ++placed;
    } else {
      ++refused;
    }
  }
  EXPECT_GT(placed, 1500);  // both outcomes are compared many times
  EXPECT_GT(refused, 50);
}

// Every best placement, as (group by position, kNoGroup for a free position), from a walk of its own.
constexpr std::size_t kNoGroup = 99;
std::vector<std::vector<std::size_t>> every_best_placement(const Problem& problem, std::int64_t best) {
  const std::size_t groups = problem.items.size();
  const std::size_t positions = problem.values[0].size();
  std::vector<std::size_t> left = problem.items;
  std::vector<std::size_t> at(positions, kNoGroup);
  std::vector<std::vector<std::size_t>> out;
  auto walk = [&](auto&& self, std::size_t p, std::int64_t total) -> void {
    if (p == positions) {
      for (std::size_t n : left) {
        if (n != 0) return;
      }
      if (total == best) out.push_back(at);
      return;
    }
    self(self, p + 1, total);
    for (std::size_t g = 0; g < groups; ++g) {
      if (left[g] == 0 || !problem.values[g][p]) continue;
      --left[g];
      at[p] = g;
      self(self, p + 1, total + *problem.values[g][p]);
      at[p] = kNoGroup;
      ++left[g];
    }
  };
  walk(walk, 0, 0);
  return out;
}

// price(): a pair some best placement uses is never called unusable, and a position called used by
// every best placement is; on random problems with many ties (several best placements).
TEST(GroupMatching, PricesNeverRuleOutAPairOrFreeAPositionThatABestPlacementUses) {
  std::mt19937 rng(20261207);
  GroupMatching matching;
  int priced = 0, pairs_ruled_out = 0, positions_forced = 0, several_best = 0;
  for (int round = 0; round < 4000; ++round) {
    const std::optional<Problem> drawn = random_problem(rng, 3);
    if (!drawn) continue;
    const Problem& problem = *drawn;
    const std::size_t groups = problem.items.size();
    const std::size_t positions = problem.values[0].size();
    load(matching, problem);
    if (::testing::Test::HasFatalFailure()) return;
    const std::optional<std::int64_t> best = matching.best();
    if (!best) continue;
    matching.price();
    const auto placements = every_best_placement(problem, *best);
    ASSERT_FALSE(placements.empty()) << "round " << round;
    several_best += placements.size() > 1 ? 1 : 0;
    for (std::size_t p = 0; p < positions; ++p) {
      bool used_by_all = true;
      for (const auto& at : placements) {
        if (at[p] == kNoGroup) {
          used_by_all = false;
        } else {
          EXPECT_TRUE(matching.may_take_at_best(at[p], p)) << "round " << round << ": group " << at[p] << " at " << p;
        }
      }
      if (matching.used_by_every_best(p)) {
        EXPECT_TRUE(used_by_all) << "round " << round << ": position " << p;
        ++positions_forced;
      }
      for (std::size_t g = 0; g < groups; ++g) pairs_ruled_out += problem.values[g][p] && !matching.may_take_at_best(g, p);
    }
    ++priced;
    if (::testing::Test::HasFailure()) break;
  }
  // The prices say something: many pairs ruled out, many positions forced.
  EXPECT_GT(priced, 1500);
  EXPECT_GT(several_best, 300);
  EXPECT_GT(pairs_ruled_out, 3000);
  EXPECT_GT(positions_forced, 1000);
}

TEST(GroupMatching, RefusesValuesOutOfRangeAndMoreItemsThanPositions) {
  GroupMatching matching;
  matching.reset(1, 2);
  EXPECT_FALSE(matching.allow(0, 0, GroupMatching::kMaxValue + 1));
  EXPECT_FALSE(matching.allow(0, 0, -GroupMatching::kMaxValue - 1));
  EXPECT_TRUE(matching.allow(0, 1, GroupMatching::kMaxValue));
  matching.set_items(0, 1);
  EXPECT_EQ(matching.best(), std::optional<std::int64_t>(GroupMatching::kMaxValue));  // position 0 was not set
  matching.set_items(0, 3);
  EXPECT_EQ(matching.best(), std::nullopt);
  matching.reset(2, 3);
  EXPECT_EQ(matching.best(), std::optional<std::int64_t>(0));  // no items: the empty placement
}

}  // namespace
}  // namespace numaplace

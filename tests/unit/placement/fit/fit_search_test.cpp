// SPDX-License-Identifier: LGPL-2.1-or-later
// The searches of the fit engine on hand-made fit matrices (no guest or host cell fitting
// involved): AssignmentBounds' ordered search and its matching and PCI bounds, and the branch
// and bound of best_assignment.h (best score, then distance; the shape-group symmetry break;
// the node cap; forbidden pairs, from which fit_guest builds the runner-up). Expected
// assignments and node counts are worked out by hand in the comments, step by step.
#include <gtest/gtest.h>

#include <numeric>

#include "placement/fit/assignment_bounds.h"
#include "placement/fit/best_assignment.h"
#include "placement/fit/fit_matrix.h"

namespace numaplace {
namespace {

// `distances` rows as the host reports them; cell i has id i. Positions are host order.
HostTopology host_with(std::vector<std::vector<std::uint32_t>> distances) {
  HostTopology host;
  for (std::uint32_t i = 0; i < distances.size(); ++i) {
    HostCell cell;
    cell.id = i;
    cell.distances = distances[i];
    host.cells.push_back(cell);
  }
  return host;
}

std::vector<std::size_t> identity_order(std::size_t n) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

// rows[g][p] != 0: guest cell g fits position p.
FitMatrix matrix(const std::vector<std::vector<int>>& rows) {
  FitMatrix fits(rows.size(), rows.empty() ? 0 : rows[0].size());
  for (std::size_t g = 0; g < rows.size(); ++g) {
    for (std::size_t p = 0; p < rows[g].size(); ++p) fits.set(g, p, rows[g][p] != 0);
  }
  return fits;
}

TEST(FitMatrix, StartsEmptyAndKeepsEachEntry) {
  FitMatrix fits(2, 3);
  EXPECT_EQ(fits.rows(), 2u);
  EXPECT_EQ(fits.columns(), 3u);
  fits.set(1, 2, true);
  for (std::size_t g = 0; g < 2; ++g) {
    for (std::size_t p = 0; p < 3; ++p) EXPECT_EQ(fits.at(g, p), g == 1 && p == 2) << g << "," << p;
  }
  fits.reset(1, 1);
  EXPECT_FALSE(fits.at(0, 0));
}

TEST(AssignmentBounds, TheOrderedSearchTakesTheFirstAssignmentThatCompletes) {
  const HostTopology host = host_with({{}, {}, {}});
  const std::vector<std::size_t> order = identity_order(3);
  // g0 fits every position, g1 and g2 only positions 0 and 1.
  const FitMatrix fits = matrix({{1, 1, 1}, {1, 1, 0}, {1, 1, 0}});
  const std::vector<PciDemand> demands;
  AssignmentBounds search(host, order, fits, demands);
  ASSERT_TRUE(search.feasible(0));
  ASSERT_TRUE(search.run(0));
  // g0 at 0 leaves g1, g2 only position 1: no complete matching, pruned at once; g0 at 1 likewise
  // (only 0 left); g0 at 2, then g1 at 0, g2 at 1. Taken: g0@0, g0@1, g0@2, g1@0, g2@1 = 5
  // (without the matching bound g1 would have been tried under g0@0 and g0@1: 7).
  EXPECT_EQ(search.chosen(), (std::vector<std::size_t>{2, 0, 1}));
  EXPECT_EQ(search.tried(), 5u);
  EXPECT_EQ(search.last_pci_shortfall(), nullptr);
}

TEST(AssignmentBounds, NoCompleteMatchingIsInfeasibleEvenWhenEveryRowFitsSomewhere) {
  const HostTopology host = host_with({{}, {}, {}});
  const std::vector<std::size_t> order = identity_order(3);
  // Both guest cells fit only position 1 (Hall's condition fails for {g0, g1}).
  const FitMatrix fits = matrix({{0, 1, 0}, {0, 1, 0}});
  const std::vector<PciDemand> demands;
  AssignmentBounds search(host, order, fits, demands);
  EXPECT_FALSE(search.feasible(0));
  EXPECT_FALSE(search.run(0));
}

TEST(AssignmentBounds, TakeAndReleaseMoveAPositionInAndOutOfUse) {
  const HostTopology host = host_with({{}, {}});
  const std::vector<std::size_t> order = identity_order(2);
  const FitMatrix fits = matrix({{1, 1}, {1, 0}});
  const std::vector<PciDemand> demands;
  AssignmentBounds search(host, order, fits, demands);
  search.take(0, 0);
  EXPECT_TRUE(search.taken(0));
  EXPECT_FALSE(search.feasible(1));  // g1 fits only position 0, now taken
  search.release(0);
  EXPECT_FALSE(search.taken(0));
  search.take(0, 1);
  EXPECT_TRUE(search.feasible(1));
}

PciDemand demand(PciNumaPolicy policy, std::uint32_t count, std::vector<std::uint32_t> per_cell,
                 std::uint32_t without_node = 0) {
  PciDemand d;
  d.request.count = count;
  d.policy = policy;
  d.per_cell = std::move(per_cell);
  d.without_node = without_node;
  for (auto n : d.per_cell) d.total += n;
  d.total += without_node;
  d.asked_so_far = count;
  return d;
}

TEST(AssignmentBounds, ThePciBoundCountsTheMostDevicesAnyCompletionReaches) {
  const HostTopology host = host_with({{}, {}, {}});
  const std::vector<std::size_t> order = identity_order(3);
  // 2 devices asked, one each on cells 1 and 2: one guest cell reaches at most 1 of them.
  const std::vector<PciDemand> required{demand(PciNumaPolicy::Required, 2, {0, 1, 1})};
  {
    const FitMatrix one = matrix({{1, 1, 1}});
    AssignmentBounds search(host, order, one, required);
    EXPECT_FALSE(search.feasible(0));
    EXPECT_EQ(search.last_pci_shortfall(), &required[0]);
  }
  {
    // Two guest cells can take cells 1 and 2 together: 2 devices.
    const FitMatrix two = matrix({{1, 1, 1}, {1, 1, 1}});
    AssignmentBounds search(host, order, two, required);
    EXPECT_TRUE(search.feasible(0));
  }
  {
    // Legacy also counts devices on no NUMA node: 1 reached + 1 without node = 2.
    const std::vector<PciDemand> legacy{demand(PciNumaPolicy::Legacy, 2, {0, 1, 1}, 1)};
    const FitMatrix one = matrix({{1, 1, 1}});
    AssignmentBounds search(host, order, one, legacy);
    EXPECT_TRUE(search.feasible(0));
  }
}

// Three cells: 0-1 at 30, 0-2 at 20, 1-2 at 12 (symmetric), 10 local.
HostTopology triangle_host() { return host_with({{10, 30, 20}, {30, 10, 12}, {20, 12, 10}}); }

TEST(BestAssignment, TheBestSumOfScoresWinsOverTheGreedyChoice) {
  const HostTopology host = triangle_host();
  const std::vector<std::size_t> order = identity_order(3);
  const FitMatrix fits = matrix({{1, 1, 1}, {1, 1, 1}});
  // Greedy would give g0 position 0 (50) and leave g1 a 0: 50. g0 at 1 (45) and g1 at 0 (50): 95.
  const std::vector<std::vector<std::int64_t>> scores{{50, 45, 0}, {50, 0, 0}};
  const std::vector<std::size_t> shape_group{0, 1};
  const std::vector<PciDemand> demands;
  const BestAssignment best = find_best_assignment({host, order, fits, scores, shape_group, demands});
  ASSERT_TRUE(best.best);
  EXPECT_EQ(best.best->positions, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(best.best->score, 95);
  EXPECT_EQ(best.best->distance, 30);  // cells 1 and 0
  EXPECT_FALSE(best.capped);
}

// Equal scores everywhere: the distance decides. Before the search, the floor (a value some
// assignment reaches, found greedily): g0@0, g1@2 (distance 20), then moving g0 to 1 gives
// distance 12; no move improves on {1, 2}: the floor is distance 12, which a subtree must be
// able to reach (reaching it is enough until an assignment is found). No two positions are twins
// (each has its own distances). Node by node (candidates by score, then distance to the cells
// chosen, then position; every candidate looked at is a node):
//   g0@0 (1): g1 can only add 30 (at 1) or 20 (at 2), more than 12: cut.
//   g0@1 (2): g1@2 would add 12, which reaches the floor; g1@2 (3) -> distance 12, the first
//             complete assignment; g1@0 (4): 30, cut.
//   g0@2 (5): g1 would add 12 at best, not below the best's 12: cut.
// Best {1, 2}, distance 12, 5 nodes.
TEST(BestAssignment, AmongEqualScoresTheClosestCellsWin) {
  const HostTopology host = triangle_host();
  const std::vector<std::size_t> order = identity_order(3);
  const FitMatrix fits = matrix({{1, 1, 1}, {1, 1, 1}});
  const std::vector<std::vector<std::int64_t>> scores{{0, 0, 0}, {0, 0, 0}};
  const std::vector<std::size_t> shape_group{0, 1};
  const std::vector<PciDemand> demands;
  const BestAssignment best = find_best_assignment({host, order, fits, scores, shape_group, demands});
  ASSERT_TRUE(best.best);
  EXPECT_EQ(best.best->positions, (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(best.best->distance, 12);
  EXPECT_EQ(best.nodes, 5u);
  EXPECT_FALSE(best.capped);
}

// The same with g0 and g1 of one shape: g1 takes only positions after g0's. The floor is again
// distance 12.
//   g0@0 (1): g1 may take 1 (30) or 2 (20), neither reaches 12: cut.
//   g0@1 (2): g1 may take 2 only; g1@2 (3) -> 12.
//   g0@2 (4): nothing after 2 is left for g1: cut. 4 nodes, one fewer than above.
TEST(BestAssignment, CellsOfOneShapeAreNotPermutedTwice) {
  const HostTopology host = triangle_host();
  const std::vector<std::size_t> order = identity_order(3);
  const FitMatrix fits = matrix({{1, 1, 1}, {1, 1, 1}});
  const std::vector<std::vector<std::int64_t>> scores{{0, 0, 0}, {0, 0, 0}};
  const std::vector<std::size_t> shape_group{0, 0};
  const std::vector<PciDemand> demands;
  const BestAssignment best = find_best_assignment({host, order, fits, scores, shape_group, demands});
  ASSERT_TRUE(best.best);
  EXPECT_EQ(best.best->positions, (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(best.nodes, 4u);
}

// With a cap of 2 nodes the search of AmongEqualScoresTheClosestCellsWin stops at its cap before
// it holds an assignment of its own (that comes at node 3): it answers its greedy floor's
// assignment, {1, 2} at distance 12 (each cell its closest free cell, then single moves), and
// says capped (the cap does not know that nothing better is left).
TEST(BestAssignment, AtTheNodeCapItReportsTheBestSoFarAndSaysCapped) {
  const HostTopology host = triangle_host();
  const std::vector<std::size_t> order = identity_order(3);
  const FitMatrix fits = matrix({{1, 1, 1}, {1, 1, 1}});
  const std::vector<std::vector<std::int64_t>> scores{{0, 0, 0}, {0, 0, 0}};
  const std::vector<std::size_t> shape_group{0, 1};
  const std::vector<PciDemand> demands;
  const AssignmentProblem problem{host, order, fits, scores, shape_group, demands};
  const BestAssignment capped = find_best_assignment(problem, {}, 2);
  ASSERT_TRUE(capped.best);
  EXPECT_EQ(capped.best->positions, (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(capped.best->distance, 12);
  EXPECT_EQ(capped.nodes, 2u);
  EXPECT_TRUE(capped.capped);
  // A cap of 1 the same way: one node, the floor's assignment.
  const BestAssignment tiny = find_best_assignment(problem, {}, 1);
  ASSERT_TRUE(tiny.best);
  EXPECT_EQ(tiny.best->positions, (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(tiny.nodes, 1u);
  EXPECT_TRUE(tiny.capped);
  // Without a cap the same search ends at node 5 (AmongEqualScoresTheClosestCellsWin), uncapped.
  EXPECT_FALSE(find_best_assignment(problem, {}, kMaxSearchNodes).capped);
}

// fit_guest's runner-up is the best assignment with one pair of the winner forbidden in turn.
// Winner {1, 2}: forbidding (g0's group, 1) leaves g0 at 0 or 2; the best is g0@2, g1@1 (12).
// Forbidding (g1's group, 2) leaves g1 at 0 or 1; the best is again cells 1 and 2: g0@2, g1@1.
TEST(BestAssignment, AForbiddenPairIsNeverTaken) {
  const HostTopology host = triangle_host();
  const std::vector<std::size_t> order = identity_order(3);
  const FitMatrix fits = matrix({{1, 1, 1}, {1, 1, 1}});
  const std::vector<std::vector<std::int64_t>> scores{{0, 0, 0}, {0, 0, 0}};
  const std::vector<std::size_t> shape_group{0, 1};
  const std::vector<PciDemand> demands;
  const AssignmentProblem problem{host, order, fits, scores, shape_group, demands};
  for (const auto& forbidden : {std::pair<std::size_t, std::size_t>{0, 1}, {1, 2}}) {
    const BestAssignment other = find_best_assignment(problem, {forbidden});
    ASSERT_TRUE(other.best);
    EXPECT_EQ(other.best->positions, (std::vector<std::size_t>{2, 1})) << forbidden.first;
    EXPECT_EQ(other.best->distance, 12);
  }
  // Forbidding position 1 to both guest cells leaves cells 0 and 2: distance 20.
  const BestAssignment without_1 = find_best_assignment(problem, {{0, 1}, {1, 1}});
  ASSERT_TRUE(without_1.best);
  EXPECT_EQ(without_1.best->distance, 20);
}

TEST(BestAssignment, NothingFitsReportsNoAssignment) {
  const HostTopology host = triangle_host();
  const std::vector<std::size_t> order = identity_order(3);
  const FitMatrix fits = matrix({{0, 1, 0}, {0, 1, 0}});
  const std::vector<std::vector<std::int64_t>> scores{{0, 0, 0}, {0, 0, 0}};
  const std::vector<std::size_t> shape_group{0, 1};
  const std::vector<PciDemand> demands;
  const BestAssignment best = find_best_assignment({host, order, fits, scores, shape_group, demands});
  EXPECT_FALSE(best.best);
  EXPECT_FALSE(best.capped);
  EXPECT_EQ(best.pci_shortfall, nullptr);
}

}  // namespace
}  // namespace numaplace

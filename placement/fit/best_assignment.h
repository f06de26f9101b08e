/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The best assignment of guest cells to distinct host cells under a scored strategy,
// by depth-first branch and bound over the fit matrix (AssignmentBounds' matching and PCI
// bounds, network affinity's bounds, a bound on score and distance together, interchangeable host positions tried once
// per level, a floor value found greedily before the search). Guest cells of one shape take
// positions in increasing order, so no permutation of like cells is visited twice. Exact: it
// leaves out only subtrees that cannot hold a strictly better assignment, so below the node
// cap its answer is the exhaustive walk's, tie-break included (docs/DESIGN-NOTES.md, "The
// scored search is exact").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "placement/fit/fit_matrix.h"
#include "placement/fit/network_demands.h"
#include "placement/fit/pci_pools.h"
#include "placement/model/host_topology.h"

namespace numaplace {

// The default node cap, a safety net: the search is exponential in the worst case (the
// distance term is a quadratic assignment problem), though the benchmark shapes (16 x 8,
// 64 x 32) need at most 1,500 nodes. O(n k) per node for k guest cells on n host cells, plus
// O(n^2) per level when a bound needs the nearest-distance sums.
inline constexpr std::size_t kMaxSearchNodes = 20000;

// One complete assignment and what it is judged on.
struct ScoredAssignment {
  std::vector<std::size_t> positions;  // host position (index into `order`) by guest cell index
  std::int64_t score = 0;
  std::int64_t distance = 0;  // sum over pairs of chosen host cells of their distance
};

// What the search reads; every matrix is [guest cell][position]. Nothing is copied.
struct AssignmentProblem {
  const HostTopology& host;
  const std::vector<std::size_t>& order;                 // host cell indexes by position (Nova's order)
  const FitMatrix& fits;                                 // guest cell x position
  const std::vector<std::vector<std::int64_t>>& scores;  // [guest cell][position], for fitting pairs
  const std::vector<std::size_t>& shape_group;           // per guest cell: first guest cell of its shape
  const std::vector<PciDemand>& demands;
  const std::vector<NetworkDemand>& networks = no_network_demands();  // host cells the chosen set must reach
};

// The search's answer: the best assignment when any fits, and how far it looked.
struct BestAssignment {
  std::optional<ScoredAssignment> best;
  std::size_t nodes = 0;
  bool capped = false;  // stopped at max_nodes: `best` is the best found so far
  const PciDemand* pci_shortfall = nullptr;  // when nothing fits for want of PCI devices
  const NetworkDemand* network_shortfall = nullptr;  // ... or for want of a cell close to a network
};

// Maximises the sum of the pairs' scores; among equal sums minimises the sum of distances
// between the chosen host cells; among those, the first the search tries (per guest cell:
// score, distance to the cells chosen, Nova's order). It visits at most `max_nodes` nodes and
// answers a valid fit whenever one exists: capped before it found an assignment of its own, it
// answers the greedy floor's (where there is one: no PCI or network demand, symmetric
// distances), and without a floor it goes on to its first assignment.
// `forbidden`: (shape group, position) pairs no guest cell of that group may take
// (the runner-up search forbids, in turn, each pair of the winner).
BestAssignment find_best_assignment(const AssignmentProblem& problem,
                                    const std::vector<std::pair<std::size_t, std::size_t>>& forbidden = {},
                                    std::size_t max_nodes = kMaxSearchNodes);

// Distance between the host cells at two positions of `order` (0 when the host reports none).
std::int64_t position_distance(const HostTopology& host, const std::vector<std::size_t>& order, std::size_t a,
                               std::size_t b);

}  // namespace numaplace

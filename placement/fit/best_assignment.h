/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The best assignment of guest cells to distinct host cells under a scored strategy:
// maximise the sum of the pairs' scores (cell_score.h); among equal sums, minimise the
// sum of pairwise distances between the chosen host cells; among those, the first in
// the order the search tries (per guest cell: score, then distance to the cells already
// chosen, then Nova's order). Depth-first branch and bound over the same fit matrix as
// Nova's search, with AssignmentBounds' matching and PCI feasibility at every node,
// an upper bound on the score (each remaining guest cell's best free pair) and a lower
// bound on the distance (each remaining guest cell's nearest free cell to those chosen,
// plus the smallest distance for every remaining pair). Guest cells of the same shape
// are interchangeable, so they take host positions in increasing order (no permutation
// of like cells is visited twice).
// The search visits at most `max_nodes` nodes (kMaxSearchNodes by default: tens of
// milliseconds at worst on a 16-cell host); when it stops there it returns the best
// assignment found so far, which is always a valid fit (the first one found is the
// greedy choice, reached without backtracking unless a PCI policy forces it), and says
// `capped`. The polynomial part: k guest cells on n host cells cost O(k^2 n) per node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "placement/fit/fit_matrix.h"
#include "placement/fit/pci_pools.h"
#include "placement/model/host_topology.h"

namespace numaplace {

inline constexpr std::size_t kMaxSearchNodes = 20000;

struct ScoredAssignment {
  std::vector<std::size_t> positions;  // host position (index into `order`) by guest cell index
  std::int64_t score = 0;
  std::int64_t distance = 0;  // sum over pairs of chosen host cells of their distance
};

struct AssignmentProblem {
  const HostTopology& host;
  const std::vector<std::size_t>& order;                 // host cell indexes by position (Nova's order)
  const FitMatrix& fits;                                 // guest cell x position
  const std::vector<std::vector<std::int64_t>>& scores;  // [guest cell][position], for fitting pairs
  const std::vector<std::size_t>& shape_group;           // per guest cell: first guest cell of its shape
  const std::vector<PciDemand>& demands;
};

struct BestAssignment {
  std::optional<ScoredAssignment> best;
  std::size_t nodes = 0;
  bool capped = false;
  const PciDemand* pci_shortfall = nullptr;  // when nothing fits for want of PCI devices
};

// `forbidden`: (shape group, position) pairs no guest cell of that group may take
// (the runner-up search forbids, in turn, each pair of the winner).
BestAssignment find_best_assignment(const AssignmentProblem& problem,
                                    const std::vector<std::pair<std::size_t, std::size_t>>& forbidden = {},
                                    std::size_t max_nodes = kMaxSearchNodes);

// Distance between the host cells at two positions of `order` (0 when the host reports none).
std::int64_t position_distance(const HostTopology& host, const std::vector<std::size_t>& order, std::size_t a,
                               std::size_t b);

}  // namespace numaplace

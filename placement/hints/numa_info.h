/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The NUMA nodes of a host as the hint merge sees them: their ids (the default
// affinity is all of them) and, optionally, the distance matrix (row i, column j =
// distance from nodes[i] to nodes[j], as in `numactl -H`). make_numa_info()
// refuses ids of 64 or more, duplicates, no nodes, and a matrix of the wrong shape.
// distance_sum() adds the distance of every ordered pair of nodes of a mask,
// diagonal included: the kubelet's mean distance times count^2.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "placement/model/error.h"
#include "placement/hints/numa_node_mask.h"

namespace numaplace {

class NumaInfo {
 public:
  const std::vector<std::uint32_t>& nodes() const { return nodes_; }
  NumaNodeMask all_nodes() const { return all_nodes_; }
  bool has_distances() const { return !distances_.empty(); }
  // Sum of distances over all ordered pairs (a, b) of nodes of `mask` (a subset of
  // all_nodes()); 0 without distances.
  std::uint64_t distance_sum(NumaNodeMask mask) const;
  // Mean distance over those pairs (the kubelet's CalculateAverageFor), 0 for an empty mask.
  double mean_distance(NumaNodeMask mask) const;

 private:
  friend Result<NumaInfo> make_numa_info(std::vector<std::uint32_t> nodes,
                                         std::vector<std::vector<std::uint64_t>> distances);
  std::vector<std::uint32_t> nodes_;
  NumaNodeMask all_nodes_;
  std::vector<std::vector<std::uint64_t>> distances_;  // by position in nodes_
  std::array<std::uint8_t, kMaxNumaNodes> position_{};  // node id -> position in nodes_
};

Result<NumaInfo> make_numa_info(std::vector<std::uint32_t> nodes, std::vector<std::vector<std::uint64_t>> distances = {});

}  // namespace numaplace

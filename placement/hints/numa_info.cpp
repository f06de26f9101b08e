// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/hints/numa_info.h"

#include <string>

namespace numaplace {

Result<NumaInfo> make_numa_info(std::vector<std::uint32_t> nodes, std::vector<std::vector<std::uint64_t>> distances) {
  if (nodes.empty()) return make_error("NoNumaNodes", "the host has no NUMA nodes to place onto");
  NumaInfo info;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::uint32_t node = nodes[i];
    if (node >= kMaxNumaNodes) {
      return make_error("NumaNodeOutOfRange", "NUMA node " + std::to_string(node) +
                                                  " is out of range; node ids go up to " +
                                                  std::to_string(kMaxNumaNodes - 1));
    }
    if (info.all_nodes_.contains(node)) {
      return make_error("DuplicateNumaNode", "NUMA node " + std::to_string(node) + " is listed twice");
    }
    info.all_nodes_ = info.all_nodes_ | NumaNodeMask::single(node);
    info.position_[node] = static_cast<std::uint8_t>(i);
  }
  if (!distances.empty()) {
    if (distances.size() != nodes.size()) {
      return make_error("InvalidNumaDistances", "the distance matrix has " + std::to_string(distances.size()) +
                                                    " rows for " + std::to_string(nodes.size()) + " NUMA nodes");
    }
    for (std::size_t row = 0; row < distances.size(); ++row) {
      if (distances[row].size() != nodes.size()) {
        return make_error("InvalidNumaDistances", "row " + std::to_string(row) + " of the distance matrix has " +
                                                      std::to_string(distances[row].size()) + " entries for " +
                                                      std::to_string(nodes.size()) + " NUMA nodes");
      }
    }
  }
  info.nodes_ = std::move(nodes);
  info.distances_ = std::move(distances);
  return info;
}

std::uint64_t NumaInfo::distance_sum(NumaNodeMask mask) const {
  if (distances_.empty()) return 0;
  std::uint64_t sum = 0;
  for (std::uint64_t from = mask.bits(); from != 0; from &= from - 1) {
    const auto& row = distances_[position_[std::countr_zero(from)]];
    for (std::uint64_t to = mask.bits(); to != 0; to &= to - 1) sum += row[position_[std::countr_zero(to)]];
  }
  return sum;
}

double NumaInfo::mean_distance(NumaNodeMask mask) const {
  if (mask.empty()) return 0;
  double sum = 0;
  double pairs = 0;
  for (std::uint32_t from : mask.nodes()) {
    for (std::uint32_t to : mask.nodes()) {
      sum += distances_.empty() ? 0.0 : static_cast<double>(distances_[position_[from]][position_[to]]);
      ++pairs;
    }
  }
  return sum / pairs;
}

}  // namespace numaplace

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// One entry point over the three NodeResourcesFit strategies, so that a candidate on
// a host's cells and a host among hosts are scored by the same call. A strategy is
// named as kube-scheduler names it ("LeastAllocated", "MostAllocated",
// "RequestedToCapacityRatio"); the ratio strategy needs a shape, the others ignore it.
// Scores are 0..100, higher is better for the chosen strategy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "placement/model/error.h"
#include "placement/scoring/requested_to_capacity_ratio.h"
#include "placement/scoring/resource_load.h"

namespace numaplace::scoring {

enum class ScoringStrategy { LeastAllocated, MostAllocated, RequestedToCapacityRatio };

// The strategy of that name, or an Error naming the known ones.
Result<ScoringStrategy> scoring_strategy_from_name(std::string_view name);
// The name scoring_strategy_from_name reads.
std::string to_string(ScoringStrategy strategy);

struct ScoringConfig {
  ScoringStrategy strategy = ScoringStrategy::LeastAllocated;
  std::vector<WeightedResource> resources;      // kube-scheduler's default: cpu and memory, weight 1
  std::vector<UtilizationShapePoint> shape;     // RequestedToCapacityRatio only
};

// The score of placing `pod` on `node`, exact for every int64 amount; an Error for an invalid ratio
// shape (InvalidScoringShape), a weight below 1 (InvalidScoringWeight) or a negative amount
// (InvalidResourceAmount).
Result<std::int64_t> score_node(const ScoringConfig& config, const NodeResources& node, const PodRequest& pod);

}  // namespace numaplace::scoring

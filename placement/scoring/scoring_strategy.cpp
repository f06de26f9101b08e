// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/scoring/scoring_strategy.h"

#include <string>

#include "placement/scoring/least_allocated.h"
#include "placement/scoring/most_allocated.h"

namespace numaplace::scoring {

Result<ScoringStrategy> scoring_strategy_from_name(std::string_view name) {
  if (name == "LeastAllocated") return ScoringStrategy::LeastAllocated;
  if (name == "MostAllocated") return ScoringStrategy::MostAllocated;
  if (name == "RequestedToCapacityRatio") return ScoringStrategy::RequestedToCapacityRatio;
  return make_error("UnknownScoringStrategy", "unknown scoring strategy '" + std::string(name) +
                                                  "'; known: LeastAllocated, MostAllocated, RequestedToCapacityRatio");
}

Result<std::int64_t> score_node(const ScoringConfig& config, const NodeResources& node, const PodRequest& pod) {
  const std::vector<WeightedResource> default_resources{{"cpu", 1}, {"memory", 1}};
  const std::vector<ResourceLoad> loads =
      resource_loads(config.resources.empty() ? default_resources : config.resources, node, pod);
  switch (config.strategy) {
    case ScoringStrategy::LeastAllocated: return least_allocated_score(loads);
    case ScoringStrategy::MostAllocated: return most_allocated_score(loads);
    case ScoringStrategy::RequestedToCapacityRatio: {
      auto shape = make_utilization_shape(config.shape);
      if (!shape) return shape.error();
      return requested_to_capacity_ratio_score(*shape, loads);
    }
  }
  return make_error("UnknownScoringStrategy", "unknown scoring strategy");
}

}  // namespace numaplace::scoring

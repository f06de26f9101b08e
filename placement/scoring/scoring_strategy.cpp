// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/scoring/scoring_strategy.h"

#include <map>
#include <optional>
#include <string>
#include <utility>

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

std::string to_string(ScoringStrategy strategy) {
  switch (strategy) {
    case ScoringStrategy::LeastAllocated: return "LeastAllocated";
    case ScoringStrategy::MostAllocated: return "MostAllocated";
    case ScoringStrategy::RequestedToCapacityRatio: return "RequestedToCapacityRatio";
  }
  return "LeastAllocated";
}

namespace {

// kube-scheduler's configuration refuses a weight below 1, and no amount of a resource is negative.
std::optional<Error> invalid_input(const ScoringConfig& config, const NodeResources& node, const PodRequest& pod) {
  for (const WeightedResource& resource : config.resources) {
    if (resource.weight < 1) {
      return make_error("InvalidScoringWeight", "resource '" + resource.name + "' has weight " +
                                                    std::to_string(resource.weight) + "; a weight must be 1 or more");
    }
  }
  const std::pair<const char*, const std::map<std::string, std::int64_t>*> amounts[] = {
      {"allocatable", &node.allocatable}, {"requested", &node.requested}, {"the new workload's request", &pod}};
  for (const auto& [what, map] : amounts) {
    for (const auto& [name, amount] : *map) {
      if (amount < 0) {
        return make_error("InvalidResourceAmount", std::string(what) + " of '" + name + "' is " +
                                                       std::to_string(amount) + "; an amount must be 0 or more");
      }
    }
  }
  return std::nullopt;
}

}  // namespace

Result<std::int64_t> score_node(const ScoringConfig& config, const NodeResources& node, const PodRequest& pod) {
  if (auto invalid = invalid_input(config, node, pod)) return *invalid;
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

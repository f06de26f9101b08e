/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The floored weighted mean LeastAllocated and MostAllocated share:
// sum(score(requested, allocatable) * weight) / sum(weight) in integer arithmetic,
// 0 when the weights sum to 0.
#pragma once

#include <cstdint>
#include <vector>

#include "placement/scoring/resource_load.h"

namespace numaplace::scoring {

template <typename ResourceScore>
std::int64_t floored_weighted_mean(const std::vector<ResourceLoad>& loads, ResourceScore score) {
  WideScore weighted_sum = 0;
  WideScore weight_sum = 0;
  for (const ResourceLoad& load : loads) {
    weighted_sum += WideScore{score(load.requested, load.allocatable)} * load.weight;
    weight_sum += load.weight;
  }
  return weight_sum == 0 ? 0 : static_cast<std::int64_t>(weighted_sum / weight_sum);
}

}  // namespace numaplace::scoring

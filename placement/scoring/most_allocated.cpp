// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/scoring/most_allocated.h"

#include <algorithm>

#include "placement/scoring/weighted_mean.h"

namespace numaplace::scoring {

std::int64_t most_allocated_resource_score(std::int64_t requested, std::int64_t allocatable) {
  if (allocatable <= 0) return 0;
  return static_cast<std::int64_t>(WideScore{std::min(requested, allocatable)} * kMaxNodeScore / allocatable);
}

std::int64_t most_allocated_score(const std::vector<ResourceLoad>& loads) {
  return floored_weighted_mean(loads, most_allocated_resource_score);
}

}  // namespace numaplace::scoring

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// MostAllocated (pack): each resource scores min(requested, allocatable) * 100 /
// allocatable, floored; the result is the weighted mean, floored:
// sum(score * weight) / sum(weight), 0 when no resource takes part.
#pragma once

#include <cstdint>
#include <vector>

#include "placement/scoring/resource_load.h"

namespace numaplace::scoring {

std::int64_t most_allocated_resource_score(std::int64_t requested, std::int64_t allocatable);
std::int64_t most_allocated_score(const std::vector<ResourceLoad>& loads);

}  // namespace numaplace::scoring

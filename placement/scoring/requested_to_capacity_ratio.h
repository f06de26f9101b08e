/* SPDX-License-Identifier: LGPL-2.1-or-later */
// RequestedToCapacityRatio: a piecewise-linear shape of (utilization %, score 0..10)
// points, scores scaled by 10 to 0..100. A resource's utilization is
// requested * 100 / allocatable floored (100 when over-requested); its score is the
// shape at that utilization, interpolated with integer division truncating toward
// zero, flat beyond the first and last points. Resources scoring 0 leave both sums;
// the result is sum(score * weight) / sum(weight) rounded half away from zero.
// A shape must have at least one point, utilizations strictly increasing within
// 0..100, scores within 0..10; make_utilization_shape says why one does not.
#pragma once

#include <cstdint>
#include <vector>

#include "placement/model/error.h"
#include "placement/scoring/resource_load.h"

namespace numaplace::scoring {

struct UtilizationShapePoint {
  std::int64_t utilization = 0;  // percent, 0..100
  std::int64_t score = 0;        // 0..10
};

inline constexpr std::int64_t kMaxCustomPriorityScore = 10;

// A validated shape with scores already scaled to 0..100.
class UtilizationShape {
 public:
  std::int64_t score_at(std::int64_t utilization) const;

 private:
  friend Result<UtilizationShape> make_utilization_shape(const std::vector<UtilizationShapePoint>& points);
  std::vector<UtilizationShapePoint> scaled_points_;
};

Result<UtilizationShape> make_utilization_shape(const std::vector<UtilizationShapePoint>& points);

std::int64_t requested_to_capacity_ratio_resource_score(const UtilizationShape& shape, std::int64_t requested,
                                                        std::int64_t allocatable);
std::int64_t requested_to_capacity_ratio_score(const UtilizationShape& shape, const std::vector<ResourceLoad>& loads);

}  // namespace numaplace::scoring

// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/scoring/requested_to_capacity_ratio.h"

#include <cmath>
#include <string>

namespace numaplace::scoring {
namespace {

constexpr std::int64_t kMaxUtilization = 100;

}  // namespace

Result<UtilizationShape> make_utilization_shape(const std::vector<UtilizationShapePoint>& points) {
  if (points.empty()) return make_error("InvalidScoringShape", "the utilization shape needs at least one point");
  UtilizationShape shape;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const UtilizationShapePoint& point = points[i];
    if (point.utilization < 0 || point.utilization > kMaxUtilization) {
      return make_error("InvalidScoringShape", "shape point " + std::to_string(i) + " has utilization " +
                                                   std::to_string(point.utilization) + "; it must be within 0..100");
    }
    if (point.score < 0 || point.score > kMaxCustomPriorityScore) {
      return make_error("InvalidScoringShape", "shape point " + std::to_string(i) + " has score " +
                                                   std::to_string(point.score) + "; it must be within 0..10");
    }
    if (i > 0 && point.utilization <= points[i - 1].utilization) {
      return make_error("InvalidScoringShape", "shape utilizations must increase strictly; point " +
                                                   std::to_string(i) + " has " + std::to_string(point.utilization) +
                                                   " after " + std::to_string(points[i - 1].utilization));
    }
    shape.scaled_points_.push_back(
        UtilizationShapePoint{point.utilization, point.score * (kMaxNodeScore / kMaxCustomPriorityScore)});
  }
  return shape;
}

std::int64_t UtilizationShape::score_at(std::int64_t utilization) const {
  for (std::size_t i = 0; i < scaled_points_.size(); ++i) {
    const UtilizationShapePoint& point = scaled_points_[i];
    if (utilization > point.utilization) continue;
    if (i == 0) return point.score;
    const UtilizationShapePoint& before = scaled_points_[i - 1];
    // C++ integer division truncates toward zero, as Go's does.
    return before.score + (point.score - before.score) * (utilization - before.utilization) /
                              (point.utilization - before.utilization);
  }
  return scaled_points_.back().score;
}

std::int64_t requested_to_capacity_ratio_resource_score(const UtilizationShape& shape, std::int64_t requested,
                                                        std::int64_t allocatable) {
  if (allocatable <= 0 || requested > allocatable) return shape.score_at(kMaxUtilization);
  return shape.score_at(static_cast<std::int64_t>(WideScore{requested} * kMaxUtilization / allocatable));
}

std::int64_t requested_to_capacity_ratio_score(const UtilizationShape& shape, const std::vector<ResourceLoad>& loads) {
  WideScore weighted_sum = 0;
  WideScore weight_sum = 0;
  for (const ResourceLoad& load : loads) {
    const std::int64_t score = requested_to_capacity_ratio_resource_score(shape, load.requested, load.allocatable);
    if (score <= 0) continue;
    weighted_sum += WideScore{score} * load.weight;
    weight_sum += load.weight;
  }
  if (weight_sum == 0) return 0;
  // std::round rounds half away from zero, like Go's math.Round.
  return static_cast<std::int64_t>(std::round(static_cast<double>(weighted_sum) / static_cast<double>(weight_sum)));
}

}  // namespace numaplace::scoring

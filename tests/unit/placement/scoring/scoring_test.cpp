// SPDX-License-Identifier: LGPL-2.1-or-later
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>

#include "placement/scoring/least_allocated.h"
#include "placement/scoring/most_allocated.h"
#include "placement/scoring/requested_to_capacity_ratio.h"
#include "placement/scoring/resource_load.h"
#include "placement/scoring/scoring_strategy.h"

namespace numaplace::scoring {
namespace {

constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;
constexpr std::int64_t kMiB = 1024LL * 1024;

// The kube-scheduler bin-packing documentation's node 1: after placing the pod,
// cpu 3000/8000, memory 512 MiB/1 GiB, intel.com/foo 3/4; weights foo 5, memory 1, cpu 3.
ScoringConfig docs_config(ScoringStrategy strategy) {
  ScoringConfig config;
  config.strategy = strategy;
  config.resources = {{"intel.com/foo", 5}, {"memory", 1}, {"cpu", 3}};
  config.shape = {{0, 0}, {100, 10}};
  return config;
}
NodeResources docs_node() {
  return NodeResources{{{"cpu", 8000}, {"memory", kGiB}, {"intel.com/foo", 4}},
                       {{"cpu", 1000}, {"memory", 256 * kMiB}, {"intel.com/foo", 1}}};
}
PodRequest docs_pod() { return {{"cpu", 2000}, {"memory", 256 * kMiB}, {"intel.com/foo", 2}}; }

TEST(Scoring, LeastAllocatedDocsExample) {
  // cpu (8000-3000)*100/8000 = 62, memory 50, foo (4-3)*100/4 = 25;
  // (25*5 + 50*1 + 62*3) / 9 = 361 / 9 = 40 (floored).
  auto score = score_node(docs_config(ScoringStrategy::LeastAllocated), docs_node(), docs_pod());
  ASSERT_TRUE(score.ok());
  EXPECT_EQ(*score, 40);
}

TEST(Scoring, MostAllocatedDocsExample) {
  // cpu 3000*100/8000 = 37, memory 50, foo 75; (75*5 + 50 + 37*3) / 9 = 536 / 9 = 59 (floored).
  auto score = score_node(docs_config(ScoringStrategy::MostAllocated), docs_node(), docs_pod());
  ASSERT_TRUE(score.ok());
  EXPECT_EQ(*score, 59);
}

TEST(Scoring, RatioDocsExampleRoundsAfterScaling) {
  // Shape 0->0, 100->100 (scaled): same per-resource scores as MostAllocated, but
  // 536 / 9 = 59.56 rounds to 60.
  auto score = score_node(docs_config(ScoringStrategy::RequestedToCapacityRatio), docs_node(), docs_pod());
  ASSERT_TRUE(score.ok());
  EXPECT_EQ(*score, 60);
}

TEST(Scoring, PodWithoutCpuOrMemoryRequestUsesTheDefaults) {
  NodeResources node{{{"cpu", 1000}, {"memory", 1000 * kMiB}}, {}};
  auto loads = resource_loads({{"cpu", 1}, {"memory", 1}}, node, PodRequest{});
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(loads[0].requested, 100);
  EXPECT_EQ(loads[1].requested, 200 * kMiB);
  // An explicit zero stays zero.
  auto explicit_zero = resource_loads({{"cpu", 1}}, node, PodRequest{{"cpu", 0}});
  ASSERT_EQ(explicit_zero.size(), 1u);
  EXPECT_EQ(explicit_zero[0].requested, 0);
}

TEST(Scoring, ScalarResourceThePodDoesNotRequestIsSkipped) {
  NodeResources node{{{"cpu", 1000}, {"nvidia.com/gpu", 4}}, {{"nvidia.com/gpu", 2}}};
  auto loads = resource_loads({{"cpu", 1}, {"nvidia.com/gpu", 1}}, node, PodRequest{{"cpu", 500}});
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0].name, "cpu");
}

TEST(Scoring, ResourceWithoutAllocatableIsSkipped) {
  NodeResources node{{{"cpu", 1000}}, {}};
  auto loads = resource_loads({{"cpu", 1}, {"memory", 1}}, node, PodRequest{{"cpu", 500}, {"memory", 1}});
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(least_allocated_score(loads), 50);
}

TEST(Scoring, OverRequestedResource) {
  EXPECT_EQ(least_allocated_resource_score(1500, 1000), 0);
  EXPECT_EQ(most_allocated_resource_score(1500, 1000), 100);
}

TEST(Scoring, NoResourcesScoreZero) {
  EXPECT_EQ(least_allocated_score({}), 0);
  EXPECT_EQ(most_allocated_score({}), 0);
}

TEST(Scoring, RatioInterpolationTruncatesTowardZero) {
  // Scaled shape 0->100, 30->0. At 10 %: 100 + (-100 * 10) / 30 = 100 + (-33) = 67
  // (flooring would give 66). Beyond the last point the shape is flat: 0.
  auto shape = make_utilization_shape({{0, 10}, {30, 0}});
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(shape->score_at(10), 67);
  EXPECT_EQ(shape->score_at(30), 0);
  EXPECT_EQ(shape->score_at(80), 0);
}

TEST(Scoring, RatioShapeIsFlatBeforeTheFirstPoint) {
  auto shape = make_utilization_shape({{20, 3}, {100, 10}});
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(shape->score_at(0), 30);
  // 30 + (100 - 30) * (60 - 20) / 80 = 30 + 35 = 65.
  EXPECT_EQ(shape->score_at(60), 65);
}

TEST(Scoring, RatioOverRequestedReadsAsFullUtilization) {
  auto shape = make_utilization_shape({{0, 0}, {100, 10}});
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(requested_to_capacity_ratio_resource_score(*shape, 2000, 1000), 100);
}

TEST(Scoring, RatioMeanRoundsHalfAwayFromZeroAndSkipsZeroScores) {
  auto shape = make_utilization_shape({{0, 0}, {100, 10}});
  ASSERT_TRUE(shape.ok());
  // Scores 50 and 51, weight 1 each: 101 / 2 = 50.5 rounds to 51. A third resource
  // at 0 % scores 0 and leaves both sums (else 101 / 3 = 34).
  std::vector<ResourceLoad> loads{{"a", 1, 50, 100}, {"b", 1, 51, 100}, {"c", 1, 0, 100}};
  EXPECT_EQ(requested_to_capacity_ratio_score(*shape, loads), 51);
}

TEST(Scoring, InvalidShapesAreErrors) {
  EXPECT_FALSE(make_utilization_shape({}).ok());
  EXPECT_FALSE(make_utilization_shape({{50, 1}, {50, 2}}).ok());
  EXPECT_FALSE(make_utilization_shape({{0, 11}}).ok());
  EXPECT_FALSE(make_utilization_shape({{101, 1}}).ok());
  ScoringConfig config{ScoringStrategy::RequestedToCapacityRatio, {{"cpu", 1}}, {}};
  auto score = score_node(config, NodeResources{{{"cpu", 10}}, {}}, PodRequest{});
  ASSERT_FALSE(score.ok());
  EXPECT_EQ(score.error().name, "InvalidScoringShape");
}

TEST(Scoring, AmountsNearTheInt64LimitScoreExactly) {
  // 9e18 allocatable, 3 requested: (9e18 - 3) * 100 overflows int64 (undefined in C++, found by
  // the json fuzz harness); exactly, 99.99... floors to 99 free and 0 used.
  const std::int64_t huge = 9'000'000'000'000'000'000;
  const ScoringConfig least{ScoringStrategy::LeastAllocated, {{"cpu", 1}}, {}};
  const ScoringConfig most{ScoringStrategy::MostAllocated, {{"cpu", 1}}, {}};
  const NodeResources node{{{"cpu", huge}}, {{"cpu", 1}}};
  EXPECT_EQ(*score_node(least, node, PodRequest{{"cpu", 2}}), 99);
  EXPECT_EQ(*score_node(most, node, PodRequest{{"cpu", 2}}), 0);
  // Already requested + the pod's request beyond int64 reads as over-requested, as any sum above
  // allocatable does.
  const NodeResources full{{{"cpu", huge}}, {{"cpu", huge}}};
  EXPECT_EQ(*score_node(least, full, PodRequest{{"cpu", huge}}), 0);
  EXPECT_EQ(*score_node(most, full, PodRequest{{"cpu", huge}}), 100);
  // Weights at the limit: score x weight is exact too, (99 w + 99 w) / 2 w.
  const std::int64_t top = std::numeric_limits<std::int64_t>::max();
  const ScoringConfig heavy{ScoringStrategy::LeastAllocated, {{"cpu", top}, {"memory", top}}, {}};
  const NodeResources two{{{"cpu", huge}, {"memory", huge}}, {}};
  EXPECT_EQ(*score_node(heavy, two, PodRequest{{"cpu", 3}, {"memory", 3}}), 99);
  const ScoringConfig ratio{ScoringStrategy::RequestedToCapacityRatio, {{"cpu", top}}, {{0, 0}, {100, 10}}};
  EXPECT_EQ(*score_node(ratio, NodeResources{{{"cpu", huge}}, {{"cpu", huge / 2}}}, PodRequest{{"cpu", 0}}), 50);
}

// Scaling every amount by k leaves each per-resource ratio, and so each floored score, unchanged:
// random small nodes, scored by a plain int64 formula written here, must score the same scaled up
// to the int64 limit.
TEST(Scoring, ScoresDoNotChangeWhenEveryAmountIsScaledToTheInt64Limit) {
  std::mt19937_64 random(20261201);
  const std::int64_t top = std::numeric_limits<std::int64_t>::max();
  for (int round = 0; round < 2000; ++round) {
    const std::int64_t allocatable = 1 + static_cast<std::int64_t>(random() % 1000);
    const std::int64_t requested = static_cast<std::int64_t>(random() % 1200);
    const std::int64_t pod = static_cast<std::int64_t>(random() % 300);
    const std::int64_t used = requested + pod;
    const std::int64_t least = used > allocatable ? 0 : (allocatable - used) * 100 / allocatable;
    const std::int64_t most = std::min(used, allocatable) * 100 / allocatable;
    const std::int64_t k = 1 + static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(top / 1200));
    const NodeResources node{{{"cpu", allocatable * k}}, {{"cpu", requested * k}}};
    const PodRequest request{{"cpu", pod * k}};
    const std::int64_t weight = 1 + static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(top));
    SCOPED_TRACE(::testing::Message() << "allocatable " << allocatable << " requested " << requested << " pod "
                                      << pod << " k " << k << " weight " << weight);
    EXPECT_EQ(*score_node({ScoringStrategy::LeastAllocated, {{"cpu", weight}}, {}}, node, request), least);
    EXPECT_EQ(*score_node({ScoringStrategy::MostAllocated, {{"cpu", weight}}, {}}, node, request), most);
  }
}

TEST(Scoring, WeightsBelowOneAndNegativeAmountsAreNamedErrors) {
  const NodeResources node{{{"cpu", 8000}}, {}};
  auto zero_weight = score_node({ScoringStrategy::LeastAllocated, {{"cpu", 0}}, {}}, node, PodRequest{});
  ASSERT_FALSE(zero_weight.ok());
  EXPECT_EQ(zero_weight.error().name, "InvalidScoringWeight");
  auto negative = score_node({ScoringStrategy::MostAllocated, {{"cpu", 1}}, {}}, NodeResources{{{"cpu", -1}}, {}},
                             PodRequest{});
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().name, "InvalidResourceAmount");
  auto negative_pod = score_node({ScoringStrategy::MostAllocated, {{"cpu", 1}}, {}}, node, PodRequest{{"cpu", -5}});
  ASSERT_FALSE(negative_pod.ok());
  EXPECT_EQ(negative_pod.error().name, "InvalidResourceAmount");
}

TEST(Scoring, StrategyNames) {
  EXPECT_EQ(*scoring_strategy_from_name("MostAllocated"), ScoringStrategy::MostAllocated);
  EXPECT_FALSE(scoring_strategy_from_name("Balanced").ok());
}

}  // namespace
}  // namespace numaplace::scoring

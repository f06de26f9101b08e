// SPDX-License-Identifier: LGPL-2.1-or-later
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <random>

#include "placement/hints/hint_merger.h"
#include "placement/hints/merge_hints.h"
#include "placement/hints/single_numa_node_policy.h"

namespace numaplace {
namespace {

NumaNodeMask mask(std::initializer_list<std::uint32_t> nodes) { return *NumaNodeMask::from_nodes(nodes); }
TopologyHint preferred(std::initializer_list<std::uint32_t> nodes) { return TopologyHint{mask(nodes), true}; }
TopologyHint not_preferred(std::initializer_list<std::uint32_t> nodes) { return TopologyHint{mask(nodes), false}; }
const TopologyHint kAnyPreferred{std::nullopt, true};

NumaInfo four_nodes() { return *make_numa_info({0, 1, 2, 3}); }

HintMergeResult merge(const std::vector<HintList>& lists, TopologyPolicy policy, const NumaInfo& numa,
                      MergeOptions options = {}) {
  auto result = merge_hints(lists, policy, options, numa);
  EXPECT_TRUE(result.ok()) << result.error().message;
  return *result;
}

TEST(NumaNodeMask, NodesetTextAndOrder) {
  EXPECT_EQ(mask({0, 1, 2, 5}).to_nodeset(), "0-2,5");
  EXPECT_EQ(mask({3, 4}).to_nodeset(), "3,4");
  EXPECT_EQ(NumaNodeMask().to_nodeset(), "");
  EXPECT_TRUE(mask({3}).is_narrower_than(mask({0, 1})));
  EXPECT_TRUE(mask({0, 2}).is_narrower_than(mask({1, 2})));  // same width, lower value
  EXPECT_FALSE(NumaNodeMask::from_nodes({64}).ok());
}

TEST(HintLists, ProvidersBecomeOneListPerResource) {
  std::vector<ProviderHints> providers{
      {},                                                              // no preference at all
      {{"cpu", std::nullopt}, {"memory", HintList{}}},                 // no preference; cannot be satisfied
      {{"gpu", HintList{preferred({1})}}}};
  auto lists = hint_lists_from_providers(providers);
  ASSERT_EQ(lists.size(), 4u);
  EXPECT_EQ(lists[0], (HintList{kAnyPreferred}));
  EXPECT_EQ(lists[1], (HintList{kAnyPreferred}));                       // cpu
  EXPECT_EQ(lists[2], (HintList{TopologyHint{std::nullopt, false}}));   // memory
  EXPECT_EQ(lists[3], (HintList{preferred({1})}));
}

TEST(HintMerge, AgreeingPreferredHintsWin) {
  auto result = merge({{preferred({0}), preferred({1})}, {preferred({1}), not_preferred({0, 1})}},
                      TopologyPolicy::Restricted, four_nodes());
  EXPECT_EQ(result.hint, preferred({1}));
  EXPECT_TRUE(result.admit);
}

TEST(HintMerge, NarrowestPreferredThenLowestValue) {
  // cpu may use {0} or {1}, memory has no preference: both {0} and {1} are preferred; {0} is lower.
  auto result = merge({{preferred({1}), preferred({0})}, {kAnyPreferred}}, TopologyPolicy::BestEffort, four_nodes());
  EXPECT_EQ(result.hint, preferred({0}));
}

// cpu prefers {0,1}; memory prefers {2}. No preferred alignment. bestNonPreferredAffinityCount
// = max(2, 1) = 2. Reachable: {0,1}&{2} = {}, {0,1}&all = {0,1}, all&{2} = {2}, all&all = all.
// A mask of exactly 2 nodes wins: {0,1}, not preferred.
TEST(HintMerge, BestNonPreferredAimsForTheWidestMinimum) {
  std::vector<HintList> lists{{preferred({0, 1}), not_preferred({0, 1, 2, 3})},
                              {preferred({2}), not_preferred({0, 1, 2, 3})}};
  auto best_effort = merge(lists, TopologyPolicy::BestEffort, four_nodes());
  EXPECT_EQ(best_effort.hint, not_preferred({0, 1}));
  EXPECT_EQ(best_effort.best_non_preferred_affinity_count, 2);
  EXPECT_TRUE(best_effort.admit);

  auto restricted = merge(lists, TopologyPolicy::Restricted, four_nodes());
  EXPECT_EQ(restricted.hint, not_preferred({0, 1}));
  EXPECT_FALSE(restricted.admit);

  // single-numa-node drops cpu's two-node hint, leaving cpu nothing: no combination, refused.
  auto single = merge(lists, TopologyPolicy::SingleNumaNode, four_nodes());
  EXPECT_FALSE(single.hint.affinity.has_value());
  EXPECT_FALSE(single.hint.preferred);
  EXPECT_FALSE(single.admit);
}

// Narrowest hints are 3 nodes ({0,1,2}) and 1 node: target 3. Reachable: {0,1,2}&{2,3} = {2},
// {0,1,2}&{1} = {1}, all&{2,3} = {2,3}, all&{1} = {1}. No 3-node mask; the widest below is {2,3}.
TEST(HintMerge, BestNonPreferredTakesTheWidestBelowTheTarget) {
  std::vector<HintList> lists{{not_preferred({0, 1, 2}), not_preferred({0, 1, 2, 3})},
                              {not_preferred({2, 3}), not_preferred({1})}};
  auto result = merge(lists, TopologyPolicy::BestEffort, four_nodes());
  EXPECT_EQ(result.best_non_preferred_affinity_count, 3);
  EXPECT_EQ(result.hint, not_preferred({2, 3}));
}

// Narrowest of each list is one node: target 1. Reachable non-empty: only {2,3} (both lists
// choosing {2,3}, not preferred). Wider than the target, but the only one.
TEST(HintMerge, BestNonPreferredTakesWiderWhenNothingElseIsLeft) {
  std::vector<HintList> lists{{not_preferred({0}), not_preferred({2, 3})}, {not_preferred({1}), not_preferred({2, 3})}};
  auto result = merge(lists, TopologyPolicy::BestEffort, four_nodes());
  EXPECT_EQ(result.hint, not_preferred({2, 3}));
}

TEST(HintMerge, UnsatisfiableResourceMakesEveryAlignmentNonPreferred) {
  // memory: [] (cannot be satisfied) -> {any, not preferred}; gpu prefers {1}.
  auto lists = hint_lists_from_providers({{{"memory", HintList{}}}, {{"gpu", HintList{preferred({1})}}}});
  auto best_effort = merge(lists, TopologyPolicy::BestEffort, four_nodes());
  EXPECT_EQ(best_effort.hint, not_preferred({1}));
  EXPECT_TRUE(best_effort.admit);
  EXPECT_FALSE(merge(lists, TopologyPolicy::Restricted, four_nodes()).admit);
}

TEST(HintMerge, NoCommonNodeFallsBackToAllNodes) {
  std::vector<HintList> lists{{preferred({0})}, {preferred({1})}};
  auto result = merge(lists, TopologyPolicy::BestEffort, four_nodes());
  EXPECT_EQ(result.hint, not_preferred({0, 1, 2, 3}));
  EXPECT_TRUE(result.admit);
}

TEST(HintMerge, NonePolicyLeavesTheGuestUnconfined) {
  auto result = merge({{preferred({0})}}, TopologyPolicy::None, four_nodes());
  EXPECT_FALSE(result.hint.affinity.has_value());
  EXPECT_FALSE(result.hint.preferred);
  EXPECT_TRUE(result.admit);
}

TEST(HintMerge, NoResourcesMeansAllNodesPreferred) {
  EXPECT_EQ(merge({}, TopologyPolicy::BestEffort, four_nodes()).hint, preferred({0, 1, 2, 3}));
  // single-numa-node reads "all nodes" as no confinement, still preferred and admitted.
  auto single = merge({}, TopologyPolicy::SingleNumaNode, four_nodes());
  EXPECT_FALSE(single.hint.affinity.has_value());
  EXPECT_TRUE(single.hint.preferred);
  EXPECT_TRUE(single.admit);
}

TEST(HintMerge, SingleNumaNodeKeepsOnlyOneNodePreferredHints) {
  auto filtered = single_numa_node_hint_lists({{preferred({0}), preferred({0, 1}), not_preferred({1}), kAnyPreferred}});
  ASSERT_EQ(filtered.size(), 1u);
  EXPECT_EQ(filtered[0], (HintList{preferred({0}), kAnyPreferred}));
}

// Distances: 0-1 is 20, 0-2 is 11. {0,1} has mean (10+20+20+10)/4 = 15; {0,2} has
// (10+11+11+10)/4 = 10.5. Narrowest alone picks {0,1} (lower value); closest picks {0,2}.
TEST(HintMerge, PreferClosestComparesEqualWidthsByMeanDistance) {
  auto numa = make_numa_info({0, 1, 2, 3}, {{10, 20, 11, 20}, {20, 10, 20, 11}, {11, 20, 10, 20}, {20, 11, 20, 10}});
  ASSERT_TRUE(numa.ok());
  std::vector<HintList> lists{{preferred({0, 1}), preferred({0, 2})}, {kAnyPreferred}};
  EXPECT_EQ(merge(lists, TopologyPolicy::BestEffort, *numa).hint, preferred({0, 1}));
  MergeOptions closest;
  closest.prefer_closest_numa_nodes = true;
  EXPECT_EQ(merge(lists, TopologyPolicy::BestEffort, *numa, closest).hint, preferred({0, 2}));
  // single-numa-node ignores prefer-closest (and these two-node hints).
  EXPECT_FALSE(merge(lists, TopologyPolicy::SingleNumaNode, *numa, closest).admit);
}

TEST(HintMerge, RefusesHostsWiderThanAllowedAndClosestWithoutDistances) {
  MergeOptions options;
  options.max_allowable_numa_nodes = 2;
  auto too_wide = merge_hints({}, TopologyPolicy::BestEffort, options, four_nodes());
  ASSERT_FALSE(too_wide.ok());
  EXPECT_EQ(too_wide.error().name, "TooManyNumaNodes");
  MergeOptions closest;
  closest.prefer_closest_numa_nodes = true;
  auto no_distances = merge_hints({}, TopologyPolicy::BestEffort, closest, four_nodes());
  ASSERT_FALSE(no_distances.ok());
  EXPECT_EQ(no_distances.error().name, "MissingNumaDistances");
}

TEST(NumaInfo, RejectsBadInput) {
  EXPECT_FALSE(make_numa_info({}).ok());
  EXPECT_FALSE(make_numa_info({0, 0}).ok());
  EXPECT_FALSE(make_numa_info({0, 64}).ok());
  EXPECT_FALSE(make_numa_info({0, 1}, {{10, 20}}).ok());
}

TEST(HintMerge, NodesNeedNotBeContiguous) {
  auto numa = make_numa_info({1, 4, 6});
  ASSERT_TRUE(numa.ok());
  // Hints mentioning node 0 (not on this host) are cut to the host's nodes.
  std::vector<HintList> lists{{not_preferred({0, 4, 6})}, {preferred({4}), not_preferred({1, 6})}};
  EXPECT_EQ(merge(lists, TopologyPolicy::BestEffort, *numa).hint, not_preferred({4}));
}

// Every hint list a resource could offer on `nodes`: all masks with at least `width`
// nodes that contain `required`, preferred at exactly max(width, |required|) nodes.
HintList up_closed_hints(std::uint32_t node_count, int width, NumaNodeMask required) {
  HintList hints;
  const int narrowest = std::max(width, required.count());
  for (std::uint64_t bits = 1; bits < (std::uint64_t{1} << node_count); ++bits) {
    NumaNodeMask candidate = NumaNodeMask::from_bits(bits);
    if (candidate.count() < width || !required.is_subset_of(candidate)) continue;
    hints.push_back(TopologyHint{candidate, candidate.count() == narrowest});
  }
  return hints;
}

std::vector<std::uint32_t> first_nodes(std::uint32_t count) {
  std::vector<std::uint32_t> nodes;
  for (std::uint32_t node = 0; node < count; ++node) nodes.push_back(node);
  return nodes;
}

// 16 nodes: cpu needs 2 nodes, memory 2, a GPU pair sits on {5,6}, a NIC pair too.
// Every resource prefers {5,6} among its narrowest masks: preferred {5,6}.
TEST(HintMerge, SixteenNodesPreferredAlignment) {
  auto numa = make_numa_info(first_nodes(16));
  ASSERT_TRUE(numa.ok());
  std::vector<HintList> lists{up_closed_hints(16, 2, {}), up_closed_hints(16, 2, {}),
                              up_closed_hints(16, 1, mask({5, 6})), up_closed_hints(16, 1, mask({5, 6}))};
  EXPECT_EQ(merge(lists, TopologyPolicy::BestEffort, *numa).hint, preferred({5, 6}));
}

// 16 nodes: cpu needs 2 nodes (prefers width 2), memory 1 (prefers width 1), a GPU on 5
// and a NIC on 9 (each preferring its own node). No mask is preferred by all; target
// = 2. {0,1} is reachable (cpu {0,1}, memory {0,1}, GPU {0,1,5}, NIC {0,1,9}) and is
// the lowest two-node mask.
TEST(HintMerge, SixteenNodesNonPreferredAlignmentWithoutEnumerating) {
  auto numa = make_numa_info(first_nodes(16));
  ASSERT_TRUE(numa.ok());
  std::vector<HintList> lists{up_closed_hints(16, 2, {}), up_closed_hints(16, 1, {}),
                              up_closed_hints(16, 1, mask({5})), up_closed_hints(16, 1, mask({9}))};
  const auto started = std::chrono::steady_clock::now();
  auto result = merge(lists, TopologyPolicy::BestEffort, *numa);
  const auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(result.hint, not_preferred({0, 1}));
  EXPECT_EQ(result.best_non_preferred_affinity_count, 2);
  // Generous bound for sanitizer/debug builds; the benchmark measures the real figure.
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), 1000);
}

// 17 lists of the 15 masks of 5 nodes containing node 0 with at least 2 nodes: the
// product of list sizes (15^17) passes 2^64, so the dense counts are reduced midway.
// Every mask containing 0 is reachable ({0} = {0,1} & {0,2}); a last list of only {0,3}
// leaves {0} and {0,3}; the target is 2: {0,3}.
TEST(HintMerge, ManyListsStayExactPastSixtyFourBitCounts) {
  auto numa = make_numa_info(first_nodes(5));
  ASSERT_TRUE(numa.ok());
  HintList with_node_zero;
  for (std::uint64_t bits = 1; bits < 32; ++bits) {
    if ((bits & 1U) && std::popcount(bits) >= 2) with_node_zero.push_back(TopologyHint{NumaNodeMask::from_bits(bits), false});
  }
  ASSERT_EQ(with_node_zero.size(), 15u);
  std::vector<HintList> lists(17, with_node_zero);
  lists.push_back({not_preferred({0, 3})});
  auto result = merge(lists, TopologyPolicy::BestEffort, *numa);
  EXPECT_EQ(result.hint, not_preferred({0, 3}));
}

// The fast merge against the kubelet's enumeration, on random inputs: up to 10 nodes
// (contiguous or scattered ids), up to 4 lists of up to 24 hints (masks, "any",
// masks reaching outside the host), every policy, with and without prefer-closest.
TEST(HintMerge, FastMergeEqualsEnumerationOnRandomInputs) {
  std::mt19937_64 random(20240611);
  auto uniform = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(random); };
  const TopologyPolicy policies[] = {TopologyPolicy::BestEffort, TopologyPolicy::Restricted,
                                     TopologyPolicy::SingleNumaNode};
  int dense_sized = 0;
  for (int round = 0; round < 3000; ++round) {
    const int node_count = uniform(1, 10);
    std::vector<std::uint32_t> nodes;
    if (uniform(0, 2) == 0) {
      std::vector<std::uint32_t> pool = first_nodes(20);
      std::shuffle(pool.begin(), pool.end(), random);
      nodes.assign(pool.begin(), pool.begin() + node_count);
      std::sort(nodes.begin(), nodes.end());
    } else {
      nodes = first_nodes(static_cast<std::uint32_t>(node_count));
    }
    std::vector<std::vector<std::uint64_t>> distances(nodes.size(), std::vector<std::uint64_t>(nodes.size()));
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      for (std::size_t j = 0; j < nodes.size(); ++j) distances[i][j] = i == j ? 10 : static_cast<std::uint64_t>(uniform(11, 14));
    }
    auto numa = make_numa_info(nodes, distances);
    ASSERT_TRUE(numa.ok());
    const std::uint64_t host_bits = numa->all_nodes().bits();

    std::vector<HintList> lists(static_cast<std::size_t>(uniform(0, 4)));
    const int max_hints = lists.size() <= 3 ? 24 : 10;
    for (HintList& list : lists) {
      const int hint_count = uniform(0, 8) == 0 ? 0 : uniform(1, max_hints);
      for (int h = 0; h < hint_count; ++h) {
        TopologyHint hint;
        hint.preferred = uniform(0, 1) == 1;
        const int kind = uniform(0, 19);
        if (kind == 0) {
          hint.affinity.reset();
        } else {
          std::uint64_t bits = 0;
          const int density = uniform(1, 3);  // sparser or denser masks
          for (std::uint32_t node : nodes) {
            if (uniform(0, 3) < density) bits |= std::uint64_t{1} << node;
          }
          if (kind == 1) bits |= std::uint64_t{1} << 30;        // a node the host does not have
          if (kind == 2) bits = host_bits;                      // every node
          hint.affinity = NumaNodeMask::from_bits(bits);
        }
        list.push_back(hint);
      }
    }
    double combinations = 1;
    for (const HintList& list : lists) combinations *= static_cast<double>(list.size());
    if (combinations > node_count * double(1 << node_count)) ++dense_sized;

    for (TopologyPolicy policy : policies) {
      for (bool closest : {false, true}) {
        MergeOptions fast;
        fast.prefer_closest_numa_nodes = closest;
        MergeOptions enumerate = fast;
        enumerate.algorithm = MergeAlgorithm::Enumerate;
        auto expected = merge_hints(lists, policy, enumerate, *numa);
        auto got = merge_hints(lists, policy, fast, *numa);
        ASSERT_TRUE(expected.ok() && got.ok());
        ASSERT_EQ(got->hint, expected->hint)
            << "round " << round << " policy " << topology_policy_name(policy) << " closest " << closest << ": got "
            << (got->hint.affinity ? got->hint.affinity->to_nodeset() : "any") << " preferred " << got->hint.preferred
            << ", expected " << (expected->hint.affinity ? expected->hint.affinity->to_nodeset() : "any")
            << " preferred " << expected->hint.preferred;
        ASSERT_EQ(got->admit, expected->admit) << "round " << round;
        ASSERT_EQ(got->best_non_preferred_affinity_count, expected->best_non_preferred_affinity_count);
      }
    }
  }
  EXPECT_GT(dense_sized, 100);  // the dense (subset-transform) path was exercised
}

}  // namespace
}  // namespace numaplace

namespace numaplace {
namespace {

// Hosts wider than the dense table (more than 20 nodes, ids up to 63) take the sparse
// path all the way; it too must agree with the enumeration.
TEST(HintMerge, FastMergeEqualsEnumerationOnWideHosts) {
  std::mt19937_64 random(7);
  auto uniform = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(random); };
  for (int round = 0; round < 500; ++round) {
    std::vector<std::uint32_t> pool;
    for (std::uint32_t node = 0; node < 64; ++node) pool.push_back(node);
    std::shuffle(pool.begin(), pool.end(), random);
    std::vector<std::uint32_t> nodes(pool.begin(), pool.begin() + uniform(21, 64));
    std::sort(nodes.begin(), nodes.end());
    auto numa = make_numa_info(nodes);
    ASSERT_TRUE(numa.ok());
    std::vector<HintList> lists(static_cast<std::size_t>(uniform(1, 4)));
    for (HintList& list : lists) {
      for (int h = uniform(1, 8); h > 0; --h) {
        std::uint64_t bits = 0;
        for (std::uint32_t node : nodes) {
          if (uniform(0, 9) < 8) bits |= std::uint64_t{1} << node;
        }
        list.push_back(TopologyHint{NumaNodeMask::from_bits(bits), uniform(0, 3) == 0});
      }
    }
    for (TopologyPolicy policy : {TopologyPolicy::BestEffort, TopologyPolicy::SingleNumaNode}) {
      MergeOptions enumerate;
      enumerate.algorithm = MergeAlgorithm::Enumerate;
      auto expected = merge_hints(lists, policy, enumerate, *numa);
      auto got = merge_hints(lists, policy, MergeOptions{}, *numa);
      ASSERT_TRUE(expected.ok() && got.ok());
      ASSERT_EQ(got->hint, expected->hint) << "round " << round;
      ASSERT_EQ(got->admit, expected->admit) << "round " << round;
    }
  }
}

}  // namespace
}  // namespace numaplace

// SPDX-License-Identifier: LGPL-2.1-or-later
// Topology hint merge: the fast merge on 8 and 16 NUMA nodes with 4 resources, and
// the kubelet's full enumeration on 8 nodes as the baseline, run in the same process.
// Each resource offers every mask that can hold it (all masks of at least its width
// that contain its device's node), preferred at its narrowest, as kubelet providers
// do; no mask is preferred by all four, so the merge must pick a non-preferred mask.
// The enumeration benchmark reports `enumerate_over_fast`: its time per merge over
// the fast merge's on the same 8-node input.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <vector>

#include "placement/hints/merge_hints.h"

namespace {

using numaplace::HintList;
using numaplace::NumaNodeMask;

struct ResourceShape {
  int width;                  // nodes the resource needs at least
  std::uint64_t device_bits;  // nodes every mask must contain (its devices), 0 for none
};

HintList hints_for(std::uint32_t node_count, ResourceShape shape) {
  HintList hints;
  const int narrowest = std::max(shape.width, std::popcount(shape.device_bits));
  for (std::uint64_t bits = 1; bits < (std::uint64_t{1} << node_count); ++bits) {
    if (std::popcount(bits) < shape.width || (bits & shape.device_bits) != shape.device_bits) continue;
    hints.push_back(numaplace::TopologyHint{NumaNodeMask::from_bits(bits), std::popcount(bits) == narrowest});
  }
  return hints;
}

struct MergeInput {
  numaplace::NumaInfo numa;
  std::vector<HintList> lists;
};

MergeInput make_input(std::uint32_t node_count) {
  std::vector<std::uint32_t> nodes;
  std::vector<std::vector<std::uint64_t>> distances(node_count, std::vector<std::uint64_t>(node_count));
  for (std::uint32_t i = 0; i < node_count; ++i) {
    nodes.push_back(i);
    for (std::uint32_t j = 0; j < node_count; ++j) distances[i][j] = i == j ? 10 : (i / 4 == j / 4 ? 12 : 21);
  }
  std::vector<ResourceShape> shapes;
  if (node_count <= 8) {
    // cpu on 5 nodes, memory on 6, a GPU on node 2 and a NIC on node 6 (6 nodes each):
    // 93 x 37 x 29 x 29 = 2.9 million combinations for the enumeration.
    shapes = {{5, 0}, {6, 0}, {6, 1U << 2}, {6, 1U << 6}};
  } else {
    // cpu on 2 nodes, memory on 1, a GPU on node 5, a NIC on node 9: 65399 x 65535 x
    // 32768 x 32768 hints, about 4.6e18 combinations.
    shapes = {{2, 0}, {1, 0}, {1, 1U << 5}, {1, 1U << 9}};
  }
  MergeInput input{*numaplace::make_numa_info(nodes, distances), {}};
  for (const ResourceShape& shape : shapes) input.lists.push_back(hints_for(node_count, shape));
  return input;
}

double fast_seconds_per_merge_8_nodes = 0;

void merge_loop(benchmark::State& state, std::uint32_t node_count, numaplace::MergeAlgorithm algorithm,
                double* seconds_per_merge) {
  const MergeInput input = make_input(node_count);
  numaplace::MergeOptions options;
  options.algorithm = algorithm;
  options.prefer_closest_numa_nodes = state.range(0) != 0;
  std::int64_t merges = 0;
  const auto started = std::chrono::steady_clock::now();
  for (auto _ : state) {
    auto result = numaplace::merge_hints(input.lists, numaplace::TopologyPolicy::BestEffort, options, input.numa);
    benchmark::DoNotOptimize(result);
    ++merges;
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (seconds_per_merge != nullptr && merges > 0) *seconds_per_merge = elapsed / static_cast<double>(merges);
  state.counters["hints"] = static_cast<double>(
      input.lists[0].size() + input.lists[1].size() + input.lists[2].size() + input.lists[3].size());
}

void BM_FastMerge8Nodes4Resources(benchmark::State& state) {
  merge_loop(state, 8, numaplace::MergeAlgorithm::Fast, &fast_seconds_per_merge_8_nodes);
}

void BM_FastMerge16Nodes4Resources(benchmark::State& state) {
  merge_loop(state, 16, numaplace::MergeAlgorithm::Fast, nullptr);
}

void BM_EnumerateMerge8Nodes4Resources(benchmark::State& state) {
  double seconds_per_merge = 0;
  merge_loop(state, 8, numaplace::MergeAlgorithm::Enumerate, &seconds_per_merge);
  if (fast_seconds_per_merge_8_nodes > 0) {
    state.counters["enumerate_over_fast"] = seconds_per_merge / fast_seconds_per_merge_8_nodes;
  }
}

// Argument: prefer-closest-numa-nodes off (0) or on (1). The enumeration runs after
// the fast 8-node merge so that the ratio compares like with like.
BENCHMARK(BM_FastMerge8Nodes4Resources)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FastMerge16Nodes4Resources)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EnumerateMerge8Nodes4Resources)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

// SPDX-License-Identifier: LGPL-2.1-or-later
// Default placement (a guest without NUMA keys: hints of its vCPUs and memory, merged under
// best-effort) on the hosts of 2026: a GB200-like host of 2 CPU cells of 72 threads and 32
// memory-only cells (34 NUMA nodes, where the kubelet gives up), and 64 cells of 16 threads, both
// for a 96-vCPU, 64 GiB guest; argument: prefer-closest off (0) or on (1, the default).
#include <benchmark/benchmark.h>

#include "bench_topologies.h"
#include "placement/lifecycle/default_placement.h"

namespace {

using numaplace::HostTopology;

HostTopology host_of(std::uint32_t cpu_cells, std::uint32_t cores, std::uint32_t memory_only, std::uint64_t memory_gib) {
  HostTopology host;
  const std::uint32_t n = cpu_cells + memory_only;
  for (std::uint32_t i = 0; i < n; ++i) {
    numaplace::HostCell cell;
    if (i < cpu_cells) {
      cell = numaplace::bench::smt_cell(i, cores, memory_gib << 20);
    } else {  // memory only: no CPUs
      cell.id = i;
      cell.memory_kib = memory_gib << 20;
    }
    for (std::uint32_t j = 0; j < n; ++j) {
      const bool cpu_pair = i < cpu_cells && j < cpu_cells;
      cell.distances.push_back(i == j ? 10 : cpu_pair ? (i / 8 == j / 8 ? 12 : 32) : 40);
    }
    host.cells.push_back(cell);
  }
  return host;
}

void place(benchmark::State& state, const HostTopology& host) {
  numaplace::FloatingGuest guest;
  guest.vcpus = 96;
  guest.memory_kib = std::uint64_t{64} << 20;
  numaplace::DefaultPlacementOptions options;
  options.prefer_closest_numa_nodes = state.range(0) != 0;
  std::size_t width = 0;
  for (auto _ : state) {
    auto placed = numaplace::place_floating_guest(host, guest, options);
    if (!placed.ok() || !placed->cells) {
      state.SkipWithError("the guest was not placed");
      return;
    }
    width = placed->cells->nodes().size();
    benchmark::DoNotOptimize(placed);
  }
  state.counters["cells"] = static_cast<double>(width);
}

void BM_DefaultPlacementGb200Like34Nodes(benchmark::State& state) {
  static const HostTopology host = host_of(2, 36, 32, 240);
  place(state, host);
}

void BM_DefaultPlacement64Cells(benchmark::State& state) {
  static const HostTopology host = host_of(64, 8, 0, 64);
  place(state, host);
}

BENCHMARK(BM_DefaultPlacementGb200Like34Nodes)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DefaultPlacement64Cells)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace

// SPDX-License-Identifier: LGPL-2.1-or-later
// Fit time per strategy (nova, spread, pack, ratio; adaptive is pack on these hosts of 4 cells
// or more) on the fit benchmark's host shape
// (cells of 8 cores x 2 threads, 64 GiB), empty and half used unevenly, for 4/8/16 host
// cells x 2/4/8 guest cells, shared and dedicated: what scoring the whole assignment
// costs over Nova's first fit. Counters: nodes (search nodes visited) and allocs (heap
// allocations per call): allocs follows the guest's and host's sizes, not nodes, because
// the search allocates nothing per node.
// BM_DefaultStrategy: the CLI's default (adaptive, which is pack here) on issue 17's shapes,
// 16 x 8 and 64 x 32 (host cells x guest cells), empty and used, shared and dedicated, beside
// Nova's first fit on the same case; counters nodes and capped (1: the search stopped at
// kMaxSearchNodes, the answer not proven best), read from an explained fit before the loop.
// BM_MixedShapes: guests whose cells have different shapes (cells of 4, 5 and 6 vCPUs in turn,
// 4 GiB each) on the same hosts with random usage (pinned CPUs and memory per cell, drawn from
// a fixed seed per case), the case DESIGN-NOTES names as the one that reached the cap; the
// same counters.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>

#include "bench/allocation_counter.h"
#include "bench/bench_topologies.h"
#include "placement/fit/fit.h"

namespace {

using namespace numaplace;

HostTopology make_host(std::uint32_t cells, bool used) {
  HostTopology host;
  for (std::uint32_t i = 0; i < cells; ++i) {
    HostCell cell = bench::smt_cell(i, 8, std::uint64_t{64} << 20);
    for (std::uint32_t j = 0; j < cells; ++j) cell.distances.push_back(i == j ? 10 : (i / 2 == j / 2) ? 12 : 21);
    if (used) {
      for (std::uint32_t c = 0; c < i % 4; ++c) cell.usage.pinned_cpus.insert(cell.cpus.first() + c);
      cell.usage.memory_kib = (std::uint64_t{4} * (i % 5)) << 20;
    }
    host.cells.push_back(cell);
  }
  return host;
}

GuestTopology make_guest(std::uint32_t cells, bool dedicated) { return bench::four_vcpu_cells(cells, dedicated); }

void BM_FitStrategy(benchmark::State& state) {
  FitOptions options;
  options.strategy = static_cast<Strategy>(state.range(0));
  const HostTopology host = make_host(static_cast<std::uint32_t>(state.range(1)), state.range(4) != 0);
  const GuestTopology guest = make_guest(static_cast<std::uint32_t>(state.range(2)), state.range(3) != 0);
  FitResult check = fit_guest(host, guest, options);
  if (!check.placement) {
    state.SkipWithError("the guest does not fit");
    return;
  }
  const std::size_t allocations_before = bench::allocations_so_far();
  for (auto _ : state) {
    FitResult result = fit_guest(host, guest, options);
    benchmark::DoNotOptimize(result);
  }
  state.counters["allocs"] = static_cast<double>(bench::allocations_so_far() - allocations_before) /
                             static_cast<double>(state.iterations());
  state.counters["nodes"] = static_cast<double>(check.assignments_tried);
  state.SetLabel(to_string(options.strategy));
}
BENCHMARK(BM_FitStrategy)
    ->ArgNames({"strategy", "hosts", "guests", "dedicated", "used"})
    ->ArgsProduct({{0, 1, 2, 3}, {4, 8, 16}, {2, 4, 8}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

// Times fit_guest of `guest` on `host` with `options`; counters nodes and capped from one
// explained fit before the loop.
void time_explained_fit(benchmark::State& state, const HostTopology& host, const GuestTopology& guest,
                        const FitOptions& options) {
  FitOptions explained = options;
  explained.explain = true;
  FitResult check = fit_guest(host, guest, explained);
  if (!check.placement || !check.explanation) {
    state.SkipWithError("the guest does not fit");
    return;
  }
  for (auto _ : state) {
    FitResult result = fit_guest(host, guest, options);
    benchmark::DoNotOptimize(result);
  }
  state.counters["nodes"] = static_cast<double>(check.assignments_tried);
  state.counters["capped"] = check.explanation->capped ? 1 : 0;
}

void BM_DefaultStrategy(benchmark::State& state) {
  FitOptions options;
  options.strategy = state.range(0) != 0 ? Strategy::Adaptive : Strategy::Nova;
  const HostTopology host = make_host(static_cast<std::uint32_t>(state.range(1)), state.range(4) != 0);
  const GuestTopology guest = make_guest(static_cast<std::uint32_t>(state.range(2)), state.range(3) != 0);
  time_explained_fit(state, host, guest, options);
  state.SetLabel(to_string(options.strategy));
}
BENCHMARK(BM_DefaultStrategy)
    ->ArgNames({"default", "hosts", "guests", "dedicated", "used"})
    ->ArgsProduct({{0, 1}, {16}, {8}, {0, 1}, {0, 1}})
    ->ArgsProduct({{0, 1}, {64}, {32}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

HostTopology randomly_used_host(std::uint32_t cells, std::uint32_t seed) {
  HostTopology host = make_host(cells, false);
  std::mt19937 rng(seed);
  for (HostCell& cell : host.cells) {
    const std::uint32_t pinned = rng() % 8;
    for (std::uint32_t c = 0; c < pinned; ++c) cell.usage.pinned_cpus.insert(cell.cpus.first() + c);
    cell.usage.memory_kib = (std::uint64_t{2} * (rng() % 16)) << 20;
  }
  return host;
}

GuestTopology mixed_guest(std::uint32_t cells, bool dedicated) {
  GuestTopology guest;
  guest.cpu_policy = dedicated ? CpuPolicy::Dedicated : CpuPolicy::Shared;
  std::uint32_t next = 0;
  for (std::uint32_t i = 0; i < cells; ++i) {
    GuestCell cell;
    cell.id = i;
    const std::uint32_t vcpus = 4 + i % 3;
    cell.cpus = CpuSet::range(next, next + vcpus - 1);
    next += vcpus;
    if (dedicated) cell.dedicated_cpus = cell.cpus;
    cell.memory_kib = std::uint64_t{4} << 20;
    guest.cells.push_back(cell);
  }
  return guest;
}

void BM_MixedShapes(benchmark::State& state) {
  FitOptions options;
  options.strategy = Strategy::Adaptive;
  const HostTopology host = randomly_used_host(static_cast<std::uint32_t>(state.range(0)),
                                               static_cast<std::uint32_t>(state.range(3)));
  const GuestTopology guest = mixed_guest(static_cast<std::uint32_t>(state.range(1)), state.range(2) != 0);
  time_explained_fit(state, host, guest, options);
}
BENCHMARK(BM_MixedShapes)
    ->ArgNames({"hosts", "guests", "dedicated", "seed"})
    ->ArgsProduct({{16}, {8}, {0, 1}, {1, 2, 3}})
    ->ArgsProduct({{64}, {16}, {0, 1}, {1, 2, 3}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

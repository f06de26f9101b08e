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
#include <benchmark/benchmark.h>

#include <cstdint>

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

void BM_DefaultStrategy(benchmark::State& state) {
  FitOptions options;
  options.strategy = state.range(0) != 0 ? Strategy::Adaptive : Strategy::Nova;
  const HostTopology host = make_host(static_cast<std::uint32_t>(state.range(1)), state.range(4) != 0);
  const GuestTopology guest = make_guest(static_cast<std::uint32_t>(state.range(2)), state.range(3) != 0);
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
  state.SetLabel(to_string(options.strategy));
}
BENCHMARK(BM_DefaultStrategy)
    ->ArgNames({"default", "hosts", "guests", "dedicated", "used"})
    ->ArgsProduct({{0, 1}, {16}, {8}, {0, 1}, {0, 1}})
    ->ArgsProduct({{0, 1}, {64}, {32}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

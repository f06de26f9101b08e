// SPDX-License-Identifier: LGPL-2.1-or-later
// How many guests each strategy admits before the first refusal, over random guest
// streams on the same hosts (the figure in docs/strategies.md). Each stream
// draws guests of 1 NUMA cell, or of 1 or 2 (guest_cells), 2..8 vCPUs per cell, 1..16 GiB per cell, shared
// or dedicated (thread policy prefer), from a fixed seed; after every admission the
// host's usage grows by what the placement holds (pinned pCPUs and the emulator pCPU,
// floating vCPU load, memory). Counters per strategy, means over the streams:
// admitted (before the first refusal) and distance (mean distance between the host
// cells of the admitted multi-cell guests). Iterations(1): a measurement, not a timing.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>

#include "bench/bench_topologies.h"
#include "placement/fit/fit.h"

namespace {

using namespace numaplace;

constexpr int kStreams = 200;
constexpr std::uint64_t kGiB = 1024 * 1024;

// `cells` cells of 8 cores x 2 threads and 64 GiB; two sockets (12 within, 21 across).
HostTopology make_host(std::uint32_t cells) {
  HostTopology host;
  for (std::uint32_t i = 0; i < cells; ++i) {
    HostCell cell = bench::smt_cell(i, 8, 64 * kGiB);
    for (std::uint32_t j = 0; j < cells; ++j) {
      cell.distances.push_back(i == j ? 10 : (i < cells / 2) == (j < cells / 2) ? 12 : 21);
    }
    host.cells.push_back(cell);
  }
  host.ratio.cpu = 4.0;
  host.ratio.ram = 1.0;
  return host;
}

GuestTopology draw_guest(std::mt19937& rng, std::uint32_t max_cells) {
  GuestTopology guest;
  const bool dedicated = rng() % 2 == 0;
  guest.cpu_policy = dedicated ? CpuPolicy::Dedicated : CpuPolicy::Shared;
  if (dedicated) guest.thread_policy = ThreadPolicy::Prefer;
  const std::uint32_t cells = 1 + rng() % max_cells;
  const std::uint32_t vcpus = 2 + rng() % 7;
  const std::uint64_t memory = (1 + rng() % 16) * kGiB;
  std::uint32_t next = 0;
  for (std::uint32_t i = 0; i < cells; ++i) {
    GuestCell cell;
    cell.id = i;
    cell.cpus = CpuSet::range(next, next + vcpus - 1);
    next += vcpus;
    if (dedicated) cell.dedicated_cpus = cell.cpus;
    cell.memory_kib = memory;
    guest.cells.push_back(cell);
  }
  return guest;
}

void account(HostTopology& host, const Placement& placement) {
  for (const auto& placed : placement.cells) {
    for (auto& cell : host.cells) {
      if (cell.id != placed.host_cell) continue;
      for (const auto& [vcpu, pcpu] : placed.pinning) cell.usage.pinned_cpus.insert(pcpu);
      for (auto cpu : placed.cpuset_reserved) cell.usage.pinned_cpus.insert(cpu);
      cell.usage.shared_cpus += static_cast<double>(placed.guest_cpus.size() - placed.pinning.size());
      cell.usage.memory_kib += placed.memory_kib;
    }
  }
}

void BM_AdmissionStreams(benchmark::State& state) {
  const auto strategy = static_cast<Strategy>(state.range(0));
  const auto cells = static_cast<std::uint32_t>(state.range(1));
  const auto max_guest_cells = static_cast<std::uint32_t>(state.range(2));
  double admitted = 0;
  double distance_sum = 0;
  double multi_cell = 0;
  for (auto _ : state) {
    for (int s = 0; s < kStreams; ++s) {
      std::mt19937 rng(1000 + static_cast<unsigned>(s));
      HostTopology host = make_host(cells);
      FitOptions options;
      options.strategy = strategy;
      while (true) {
        const GuestTopology guest = draw_guest(rng, max_guest_cells);
        FitResult result = fit_guest(host, guest, options);
        if (!result.placement) break;
        admitted += 1;
        if (result.placement->cells.size() == 2) {
          multi_cell += 1;
          distance_sum += *host.distance(result.placement->cells[0].host_cell, result.placement->cells[1].host_cell);
        }
        account(host, *result.placement);
      }
    }
  }
  state.counters["admitted"] = admitted / kStreams;
  state.counters["distance"] = multi_cell > 0 ? distance_sum / multi_cell : 0;
  state.SetLabel(to_string(strategy) + " on " + std::to_string(cells) + " cells, guests of 1.." +
                 std::to_string(max_guest_cells) + " cells");
}
BENCHMARK(BM_AdmissionStreams)
    ->ArgNames({"strategy", "cells", "guest_cells"})
    ->ArgsProduct({{static_cast<std::int64_t>(Strategy::Nova), static_cast<std::int64_t>(Strategy::Spread),
                    static_cast<std::int64_t>(Strategy::Pack), static_cast<std::int64_t>(Strategy::Ratio),
                    static_cast<std::int64_t>(Strategy::Adaptive)},
                   {2, 4, 8},
                   {1, 2}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

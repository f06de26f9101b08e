// SPDX-License-Identifier: LGPL-2.1-or-later
// Guest NUMA fit (fit_guest, Nova's order, ordered search with matching bounds):
// 2/4/8/16 host cells x 1/2/4/8 guest cells, shared and dedicated (SMT siblings,
// thread policy require), on an empty host and on a near-full one where the cells
// Nova tries first cannot take a guest cell (shared: no memory left behind a low CPU
// load; dedicated: one thread of every core pinned, so no sibling pair is free).
// Plus a case shaped like perf.jsonl's nova-perf-c (16 host cells, 8-cell dedicated
// 1G-page guest, the most attractive cell without free 1G pages), which Nova walks
// ~32 million permutations for, and a 16 x 8 case whose guest cells all differ in shape
// (no fit-matrix row shared between guest cells).
#include <benchmark/benchmark.h>

#include <cstdint>

#include "bench/bench_topologies.h"
#include "placement/fit/fit.h"

namespace {

using namespace numaplace;

constexpr std::uint32_t kCores = 8;  // per host cell, two threads each

HostCell smt_cell(std::uint32_t id) {
  HostCell cell = bench::smt_cell(id, kCores, std::uint64_t{64} << 20);
  cell.pages = {{4, (std::uint64_t{60} << 20) / 4, 0, 0}, {1048576, 4, 0, 0}};
  return cell;
}

// `full` cells (the first ones Nova tries) cannot take a guest cell; the rest can.
HostTopology make_host(std::uint32_t cells, bool dedicated, bool near_full, std::uint32_t guest_cells) {
  HostTopology host;
  for (std::uint32_t i = 0; i < cells; ++i) host.cells.push_back(smt_cell(i));
  if (!near_full) return host;
  const std::uint32_t full = cells - guest_cells;
  for (std::uint32_t i = 0; i < cells; ++i) {
    HostCell& cell = host.cells[i];
    const bool is_full = i < full;
    if (dedicated) {
      const std::uint32_t base = i * 2 * kCores;
      if (is_full) {
        for (std::uint32_t c = 0; c < kCores; ++c) cell.usage.pinned_cpus.insert(base + c);  // 8 lone threads free
      } else {
        for (std::uint32_t c = 0; c < 5; ++c) {  // 3 whole cores free: 6 CPUs, sorted after the 8-free cells
          cell.usage.pinned_cpus.insert(base + c);
          cell.usage.pinned_cpus.insert(base + kCores + c);
        }
      }
    } else if (is_full) {
      cell.usage.memory_kib = std::uint64_t{95} << 20;  // at the RAM ratio limit, but no CPU load: sorted first
    } else {
      cell.usage.shared_cpus = 200;
      cell.usage.memory_kib = std::uint64_t{32} << 20;
    }
  }
  return host;
}

GuestTopology make_guest(std::uint32_t cells, bool dedicated) {
  return bench::four_vcpu_cells(cells, dedicated, ThreadPolicy::Require);
}

void BM_Fit(benchmark::State& state) {
  const auto hosts = static_cast<std::uint32_t>(state.range(0));
  const auto guests = static_cast<std::uint32_t>(state.range(1));
  const bool dedicated = state.range(2) != 0;
  const bool near_full = state.range(3) != 0;
  const HostTopology host = make_host(hosts, dedicated, near_full, guests);
  const GuestTopology guest = make_guest(guests, dedicated);
  const FitResult check = fit_guest(host, guest);
  if (!check.placement) {
    state.SkipWithError("the benchmark guest does not fit");
    return;
  }
  for (auto _ : state) {
    FitResult result = fit_guest(host, guest);
    benchmark::DoNotOptimize(result);
  }
  state.SetLabel(std::string(dedicated ? "dedicated" : "shared") + (near_full ? " near-full" : " empty"));
}

void fit_grid(benchmark::internal::Benchmark* b) {
  b->ArgNames({"hosts", "guests", "dedicated", "near_full"});
  for (std::int64_t dedicated : {0, 1}) {
    for (std::int64_t near_full : {0, 1}) {
      for (std::int64_t hosts : {2, 4, 8, 16}) {
        for (std::int64_t guests : {1, 2, 4, 8}) {
          if (guests <= hosts) b->Args({hosts, guests, dedicated, near_full});
        }
      }
    }
  }
}
BENCHMARK(BM_Fit)->Apply(fit_grid)->Unit(benchmark::kMicrosecond);

// nova-perf-c's shape: 16 cells x 16 CPUs, an 8-cell dedicated guest on 1G pages; the cell
// with the most free memory (sorted first) has no free 1G page, the others are busy enough
// that only 8 of them can take a guest cell.
void BM_FitPerfCLike(benchmark::State& state) {
  HostTopology host;
  for (std::uint32_t i = 0; i < 16; ++i) {
    HostCell cell = smt_cell(i);
    cell.pages = {{4, (std::uint64_t{32} << 20) / 4, 0, 0}, {1048576, 32, 24, 0}};  // 8 free 1G pages
    cell.usage.memory_kib = std::uint64_t{8 + i} << 20;
    if (i == 0) {
      cell.usage.memory_kib = 0;
      cell.pages[1].used = 32;  // most attractive, no 1G page free
    }
    if (i >= 9) {
      for (std::uint32_t c = 0; c < 14; ++c) cell.usage.pinned_cpus.insert(i * 2 * kCores + c);  // 2 CPUs free
    }
    host.cells.push_back(cell);
  }
  GuestTopology guest;
  guest.cpu_policy = CpuPolicy::Dedicated;
  for (std::uint32_t g = 0; g < 8; ++g) {
    GuestCell cell;
    cell.id = g;
    cell.cpus = CpuSet::range(4 * g, 4 * g + 3);
    cell.dedicated_cpus = cell.cpus;
    cell.memory_kib = std::uint64_t{4} << 20;
    cell.pagesize = 1048576;
    guest.cells.push_back(cell);
  }
  if (!fit_guest(host, guest).placement) {
    state.SkipWithError("the perf-c-like guest does not fit");
    return;
  }
  for (auto _ : state) {
    FitResult result = fit_guest(host, guest);
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_FitPerfCLike)->Unit(benchmark::kMicrosecond);

}  // namespace

namespace {

// Guest cells of eight different shapes (1..8 dedicated vCPUs), so no fit-matrix row is
// shared: the cost of 16 x 8 distinct cell checks with pinning.
void BM_FitDistinctCells(benchmark::State& state) {
  HostTopology host;
  for (std::uint32_t i = 0; i < 16; ++i) host.cells.push_back(smt_cell(i));
  GuestTopology guest;
  guest.cpu_policy = CpuPolicy::Dedicated;
  std::uint32_t next = 0;
  for (std::uint32_t g = 0; g < 8; ++g) {
    GuestCell cell;
    cell.id = g;
    cell.cpus = CpuSet::range(next, next + g);
    next += g + 1;
    cell.dedicated_cpus = cell.cpus;
    cell.memory_kib = std::uint64_t{1 + g} << 20;
    guest.cells.push_back(cell);
  }
  if (!fit_guest(host, guest).placement) {
    state.SkipWithError("the distinct-cells guest does not fit");
    return;
  }
  for (auto _ : state) {
    FitResult result = fit_guest(host, guest);
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_FitDistinctCells)->Unit(benchmark::kMicrosecond);

}  // namespace

// SPDX-License-Identifier: LGPL-2.1-or-later
// Ranking many hosts for one guest (rank_hosts, placement/lifecycle/host_ranking.h): 10,000
// pre-parsed hosts of 2, 4 or 8 SMT cells (8 cores x 2 threads each) with a random
// mix of usage (pinned pCPUs, floating load, memory; about one in ten hosts too full
// for the guest), one request: a 2-cell guest, shared or dedicated (thread policy
// prefer); each host's cells chosen by Nova's first fit or by the default strategy (what `numaplace
// rank` does unless told otherwise, placement/fit/strategy.h). Target (issue 17): at most 50 ms for
// the 10,000 on one core with the default strategy.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "bench/allocation_counter.h"
#include "bench/bench_topologies.h"
#include "placement/lifecycle/host_ranking.h"

namespace {

using namespace numaplace;

constexpr std::uint32_t kCores = 8;

HostTopology random_host(std::mt19937& rng) {
  const std::uint32_t cells = 2u << (rng() % 3);  // 2, 4 or 8
  const bool crowded = rng() % 10 == 0;
  HostTopology host;
  for (std::uint32_t id = 0; id < cells; ++id) {
    HostCell cell = bench::smt_cell(id, kCores, std::uint64_t{32} << 20);
    const std::uint32_t pinned = crowded ? 2 * kCores - 1 : static_cast<std::uint32_t>(rng() % kCores);
    for (std::uint32_t p = 0; p < pinned; ++p) cell.usage.pinned_cpus.insert(cell.cpus.first() + p);
    cell.usage.shared_cpus = static_cast<double>(rng() % 64);
    cell.usage.memory_kib = crowded ? cell.memory_kib * 3 / 2 : (rng() % 24) * (std::uint64_t{1} << 20);
    for (std::uint32_t other = 0; other < cells; ++other) cell.distances.push_back(other == id ? 10 : 21);
    host.cells.push_back(std::move(cell));
  }
  return host;
}

std::vector<HostTopology> random_hosts(std::size_t count) {
  std::mt19937 rng(42);
  std::vector<HostTopology> hosts;
  hosts.reserve(count);
  for (std::size_t i = 0; i < count; ++i) hosts.push_back(random_host(rng));
  return hosts;
}

void BM_RankHosts(benchmark::State& state) {
  static const std::vector<HostTopology> hosts = random_hosts(10000);
  GuestRequest request;
  request.vcpus = 8;
  request.memory_kib = std::uint64_t{8} << 20;
  request.flavor_specs = {{"hw:numa_nodes", "2"}};
  if (state.range(0) == 1) request.flavor_specs["hw:cpu_policy"] = "dedicated";
  RankOptions options;
  options.fit.strategy = state.range(2) == 0 ? Strategy::Nova : kDefaultStrategy;
  options.scoring.strategy = state.range(1) == 0 ? scoring::ScoringStrategy::LeastAllocated
                                                 : scoring::ScoringStrategy::MostAllocated;
  std::size_t fitting = 0;
  const auto allocations_before = bench::allocations_so_far();
  for (auto _ : state) {
    auto ranked = rank_hosts(hosts, request, options);
    fitting = 0;
    for (const auto& r : *ranked) fitting += r.fits ? 1 : 0;
    benchmark::DoNotOptimize(ranked);
  }
  // Heap allocations per host ranked: deterministic, unlike time on a shared machine.
  state.counters["allocs/host"] = static_cast<double>(bench::allocations_so_far() - allocations_before) /
                                  (static_cast<double>(hosts.size()) * static_cast<double>(state.iterations()));
  state.counters["hosts"] = static_cast<double>(hosts.size());
  state.counters["fitting"] = static_cast<double>(fitting);
  state.counters["hosts/s"] = benchmark::Counter(static_cast<double>(hosts.size()) * state.iterations(),
                                                 benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RankHosts)
    ->ArgsProduct({{0, 1}, {0, 1}, {0, 1}})
    ->ArgNames({"dedicated", "pack", "default_cells"})
    ->Unit(benchmark::kMillisecond);

}  // namespace

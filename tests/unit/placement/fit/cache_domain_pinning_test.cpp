// SPDX-License-Identifier: LGPL-2.1-or-later
// Compact pinning on cells of several L3 cache domains: into as few domains as hold the vCPUs,
// never a change in whether a guest cell fits. The property's checker counts domains and free
// pCPUs with plain arrays on its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>
#include <vector>

#include "placement/fit/cpu_pinning.h"

namespace numaplace {
namespace {

// One cell of `cores` cores of `threads` threads (core c has CPUs c*threads ...), L3 domains of
// `per_domain` consecutive cores.
HostCell cell_of(std::uint32_t cores, std::uint32_t threads, std::uint32_t per_domain) {
  HostCell cell;
  for (std::uint32_t c = 0; c < cores; ++c) {
    CpuSet core;
    for (std::uint32_t t = 0; t < threads; ++t) core.insert(c * threads + t);
    cell.siblings.push_back(core);
    cell.cpus = cell.cpus.united(core);
  }
  for (std::uint32_t first = 0; first < cores; first += per_domain) {
    CpuSet domain;
    for (std::uint32_t c = first; c < std::min(cores, first + per_domain); ++c) domain = domain.united(cell.siblings[c]);
    cell.cache_domains.push_back(domain);
  }
  cell.shared_cpus = cell.cpus;
  cell.dedicated_cpus = cell.cpus;
  cell.memory_kib = 64u << 20;
  return cell;
}

std::set<std::size_t> domains_spanned(const HostCell& cell, const CpuPinning& pin) {
  std::set<std::size_t> spanned;
  for (const auto& [vcpu, pcpu] : pin.pinning) {
    for (std::size_t d = 0; d < cell.cache_domains.size(); ++d) {
      if (cell.cache_domains[d].contains(pcpu)) spanned.insert(d);
    }
  }
  return spanned;
}

// 16 cores of 2 threads in L3 banks of 4 cores; a 2-vCPU guest holds core 0. An 8-vCPU guest fits
// in one bank (cores 4-7) and gets it, where pinning over the cell took cores 1-4 (two banks).
TEST(CacheDomainPinning, AGuestCellThatFitsOneBankGetsOne) {
  HostCell cell = cell_of(16, 2, 4);
  cell.usage.pinned_cpus = CpuSet{0, 1};
  const CpuSet vcpus = CpuSet::range(0, 7);
  auto nova = pin_dedicated_cpus(cell, vcpus, ThreadPolicy::Prefer, 0, nullptr, PinningStyle::NovaOrder);
  ASSERT_TRUE(nova.has_value());
  EXPECT_EQ(domains_spanned(cell, *nova).size(), 2u);
  auto compact = pin_dedicated_cpus(cell, vcpus, ThreadPolicy::Prefer, 0, nullptr, PinningStyle::Compact);
  ASSERT_TRUE(compact.has_value());
  EXPECT_EQ(domains_spanned(cell, *compact), (std::set<std::size_t>{1}));
  CpuSet pcpus;
  for (const auto& [vcpu, pcpu] : compact->pinning) pcpus.insert(pcpu);
  EXPECT_EQ(pcpus, CpuSet::range(8, 15));  // cores 4-7
}

// A bank with room for exactly the guest is taken before a whole one, which stays whole.
TEST(CacheDomainPinning, TheTightestBankThatHoldsItIsTaken) {
  HostCell cell = cell_of(8, 1, 4);  // banks 0-3 and 4-7
  cell.usage.pinned_cpus = CpuSet{0, 1};
  auto pin = pin_dedicated_cpus(cell, CpuSet{0, 1}, ThreadPolicy::Prefer, 0, nullptr, PinningStyle::Compact);
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(domains_spanned(cell, *pin), (std::set<std::size_t>{0}));
}

TEST(CacheDomainPinningProperty, FewestDomainsAndTheSameFitAsWithoutThem) {
  const char* seed_env = std::getenv("NUMAPLACE_PROPERTY_SEED");
  std::mt19937 rng(seed_env ? static_cast<unsigned>(std::strtoul(seed_env, nullptr, 10)) : 777u);
  int multi_domain = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::uint32_t threads = 1 + rng() % 2, per_domain = 2 + rng() % 3, domains = 2 + rng() % 5;
    HostCell cell = cell_of(per_domain * domains, threads, per_domain);
    const std::uint32_t cpus = per_domain * domains * threads;
    for (std::uint32_t cpu = 0; cpu < cpus; ++cpu) {
      if (rng() % 3 == 0) cell.usage.pinned_cpus.insert(cpu);
    }
    const std::uint32_t wanted = 1 + rng() % cpus;
    const CpuSet vcpus = CpuSet::range(0, wanted - 1);
    HostCell flat = cell;
    flat.cache_domains.clear();
    auto without = pin_dedicated_cpus(flat, vcpus, ThreadPolicy::Prefer, 0, nullptr, PinningStyle::Compact);
    auto with = pin_dedicated_cpus(cell, vcpus, ThreadPolicy::Prefer, 0, nullptr, PinningStyle::Compact);
    const std::string context = "round " + std::to_string(round) + ": " + std::to_string(wanted) + " vCPUs, pinned " +
                                to_cpu_list(cell.usage.pinned_cpus) + " of " + std::to_string(cpus);
    ASSERT_EQ(with.has_value(), without.has_value()) << context;
    if (!with) continue;
    // The checker: free pCPUs per domain, and the fewest domains whose free pCPUs add up to the vCPUs.
    std::vector<std::size_t> free(domains, 0);
    std::vector<bool> taken(cpus, false);
    for (std::uint32_t cpu = 0; cpu < cpus; ++cpu) {
      if (!cell.usage.pinned_cpus.contains(cpu)) ++free[cpu / (per_domain * threads)];
    }
    std::sort(free.rbegin(), free.rend());
    std::size_t fewest = 0, sum = 0;
    while (sum < wanted) sum += free[fewest++];
    for (const auto& [vcpu, pcpu] : with->pinning) {
      ASSERT_FALSE(cell.usage.pinned_cpus.contains(pcpu)) << context;
      ASSERT_FALSE(taken[pcpu]) << context;
      taken[pcpu] = true;
    }
    ASSERT_EQ(with->pinning.size(), wanted) << context;
    ASSERT_EQ(domains_spanned(cell, *with).size(), fewest) << context;
    multi_domain += fewest > 1 ? 1 : 0;
  }
  EXPECT_GT(multi_domain, 100) << "the draw should need several domains often";
}

}  // namespace
}  // namespace numaplace

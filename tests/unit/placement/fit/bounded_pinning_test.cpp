// SPDX-License-Identifier: LGPL-2.1-or-later
// Pinning dedicated vCPUs the operator bounded (<vcpupin>, and <emulatorpin> for the isolated
// emulator pCPU or for the vCPUs the emulator runs on): hand-worked cells, then random cells whose answers are checked by code of its
// own (every vCPU and the emulator within its bound, on a free pCPU of the cell, no pCPU twice, the
// thread policy kept) and, for the thread policies that allow any free pCPU, against an exhaustive
// search for a pinning that keeps every bound.
#include "placement/fit/bounded_pinning.h"
#include "support/topology_builders.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <set>

namespace numaplace {
namespace {

using Pins = std::vector<std::pair<std::uint32_t, std::uint32_t>>;
using Bounds = std::map<std::uint32_t, CpuSet>;

using testing::smt_cell;  // core i = {i, i + cores}

TEST(BoundedPinning, WithoutBoundsItIsThePlainPinning) {
  HostCell cell = smt_cell(4);
  auto plain = pin_dedicated_cpus(cell, CpuSet{0, 1, 2}, ThreadPolicy::Prefer, 1, nullptr);
  auto within = pin_dedicated_cpus_within(cell, CpuSet{0, 1, 2}, Bounds{{7, CpuSet{3}}}, nullptr, ThreadPolicy::Prefer, 1, nullptr);
  ASSERT_TRUE(plain && within);
  EXPECT_EQ(within->pinning, plain->pinning);
  EXPECT_EQ(within->reserved, plain->reserved);
}

TEST(BoundedPinning, ThePlainPCpusAreHandedOutAgainWhenTheyHoldTheBound) {
  HostCell cell = smt_cell(4);  // plain: {0:0, 1:4, 2:1}
  auto pin = pin_dedicated_cpus_within(cell, CpuSet{0, 1, 2}, Bounds{{0, CpuSet{4}}}, nullptr, ThreadPolicy::Prefer, 0, nullptr);
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(pin->pinning, (Pins{{0, 4}, {1, 0}, {2, 1}}));
}

TEST(BoundedPinning, ABoundOutsideThePlainChoiceIsTakenFirst) {
  HostCell cell = smt_cell(4);  // cores {0,4} {1,5} {2,6} {3,7}; plain: {0:0, 1:4}
  auto pin = pin_dedicated_cpus_within(cell, CpuSet{0, 1}, Bounds{{0, CpuSet{3}}}, nullptr, ThreadPolicy::Prefer, 0, nullptr);
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(pin->pinning, (Pins{{0, 3}, {1, 0}}));
}

TEST(BoundedPinning, IsolateGivesTheBoundedVCpuAWholeCore) {
  HostCell cell = smt_cell(3);  // cores {0,3} {1,4} {2,5}
  auto pin = pin_dedicated_cpus_within(cell, CpuSet{0, 1}, Bounds{{1, CpuSet{5}}}, nullptr, ThreadPolicy::Isolate, 0, nullptr);
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(pin->pinning, (Pins{{0, 0}, {1, 5}}));
  EXPECT_EQ(pin->isolated, (CpuSet{2, 3}));
}

TEST(BoundedPinning, TheEmulatorPCpuComesFromWhatTheBoundedVCpusLeave) {
  HostCell cell = testing::flat_cell(0, CpuSet::range(0, 3), 1 << 20);
  auto pin = pin_dedicated_cpus_within(cell, CpuSet{0, 1}, Bounds{{0, CpuSet{2}}, {1, CpuSet{3}}},
                                       nullptr, ThreadPolicy::Prefer, 1, nullptr);
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(pin->pinning, (Pins{{0, 2}, {1, 3}}));
  EXPECT_EQ(pin->reserved, (CpuSet{0}));
}

TEST(BoundedPinning, TheIsolatedEmulatorPCpuIsReservedWithinItsBound) {
  HostCell cell = smt_cell(3);  // cores {0,3} {1,4} {2,5}; plain isolate: vCPU 0 on 0, emulator on 1
  const CpuSet bound{5};
  auto pin = pin_dedicated_cpus_within(cell, CpuSet{0}, Bounds{}, &bound, ThreadPolicy::Isolate, 1, nullptr);
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(pin->pinning, (Pins{{0, 0}}));
  EXPECT_EQ(pin->reserved, (CpuSet{5}));
  EXPECT_EQ(pin->isolated, (CpuSet{2, 3}));
  const CpuSet held{9};
  std::string why;
  EXPECT_FALSE(pin_dedicated_cpus_within(cell, CpuSet{0}, Bounds{}, &held, ThreadPolicy::Isolate, 1, &why));
  EXPECT_NE(why.find("needs the emulator's isolated pCPU on one of pCPUs 9"), std::string::npos) << why;
}

TEST(BoundedPinning, RefusalsNameTheVCpuAndWhyItsBoundIsOutOfReach) {
  HostCell cell = testing::flat_cell(0, CpuSet::range(0, 3), 1 << 20);
  cell.usage.pinned_cpus = CpuSet{1};
  auto refusal = [&](const Bounds& bounds) {
    std::string why;
    EXPECT_FALSE(pin_dedicated_cpus_within(cell, CpuSet{0, 1}, bounds, nullptr, ThreadPolicy::Prefer, 0, &why).has_value());
    return why;
  };
  EXPECT_NE(refusal({{1, CpuSet{9}}}).find("dedicated vCPU 1 on one of pCPUs 9"), std::string::npos);
  EXPECT_NE(refusal({{1, CpuSet{9}}}).find("host cell 0 has none of them to pin"), std::string::npos);
  EXPECT_NE(refusal({{0, CpuSet{1}}}).find("(1) all pinned by guests"), std::string::npos);
  EXPECT_NE(refusal({{0, CpuSet{2}}, {1, CpuSet{2}}}).find("other bounded vCPUs need them"), std::string::npos);
}

// ---- Random cells -------------------------------------------------------------------------

struct Drawn {
  HostCell cell;
  CpuSet vcpus;
  Bounds bounds;
  std::optional<CpuSet> emulator_bound;  // reserve 1: the reserved pCPU's; reserve 0: one of emulator_vcpus'
  CpuSet emulator_vcpus;                 // reserve 0: the vCPUs the emulator runs on
  ThreadPolicy policy = ThreadPolicy::Prefer;
  std::uint32_t reserve = 0;
};

Drawn draw(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Drawn d;
  const auto threads = static_cast<std::uint32_t>(pick(1, 2));
  const auto cores = static_cast<std::uint32_t>(pick(2, 5));
  d.cell.id = 0;
  d.cell.cpus = CpuSet::range(0, threads * cores - 1);
  d.cell.shared_cpus = d.cell.cpus;
  d.cell.dedicated_cpus = d.cell.cpus;
  d.cell.memory_kib = 1 << 20;
  for (std::uint32_t c = 0; c < cores; ++c) {
    CpuSet core;
    for (std::uint32_t t = 0; t < threads; ++t) core.insert(c + t * cores);
    d.cell.siblings.push_back(core);
  }
  for (auto cpu : d.cell.cpus) {
    if (pick(0, 3) == 0) d.cell.usage.pinned_cpus.insert(cpu);
  }
  const int wanted = pick(1, std::min<int>(4, static_cast<int>(d.cell.cpus.size())));
  d.vcpus = CpuSet::range(0, static_cast<std::uint32_t>(wanted - 1));
  for (auto v : d.vcpus) {
    if (pick(0, 1) == 0) continue;
    CpuSet bound;
    for (int n = pick(1, 2); n > 0; --n) bound.insert(static_cast<std::uint32_t>(pick(0, static_cast<int>(d.cell.cpus.size()))));
    d.bounds[v] = bound;
  }
  const int policy = pick(0, 3);
  d.policy = policy == 0 ? ThreadPolicy::Unset : policy == 1 ? ThreadPolicy::Prefer
           : policy == 2 ? ThreadPolicy::Isolate : ThreadPolicy::Require;
  d.reserve = static_cast<std::uint32_t>(pick(0, 1));
  if (pick(0, 1) == 0) {
    CpuSet bound;
    for (int n = pick(1, 2); n > 0; --n) bound.insert(static_cast<std::uint32_t>(pick(0, static_cast<int>(d.cell.cpus.size()))));
    d.emulator_bound = bound;
    for (auto v : d.vcpus) {
      if (d.reserve == 0 && (d.emulator_vcpus.empty() || pick(0, 1) == 0)) d.emulator_vcpus.insert(v);
    }
  }
  return d;
}

// Whether some distinct free pCPUs hold every vCPU within its bound, with `reserve` more free
// pCPUs left over (within the emulator's bound when it has one), or without a reserve and with an
// emulator bound, one of emulator_vcpus on a pCPU of it: every injective choice tried.
bool exists_by_search(const Drawn& d, const std::vector<std::uint32_t>& free, std::size_t v,
                      std::vector<std::uint32_t>& chosen) {
  const auto used = [&](std::uint32_t cpu) { return std::find(chosen.begin(), chosen.end(), cpu) != chosen.end(); };
  if (v == d.vcpus.size()) {
    if (!d.emulator_bound) return free.size() >= chosen.size() + d.reserve;
    if (d.reserve > 0) {
      return std::any_of(free.begin(), free.end(),
                         [&](std::uint32_t cpu) { return !used(cpu) && d.emulator_bound->contains(cpu); });
    }
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      if (d.emulator_vcpus.contains(static_cast<std::uint32_t>(i)) && d.emulator_bound->contains(chosen[i])) return true;
    }
    return false;
  }
  const auto vcpu = static_cast<std::uint32_t>(v);
  const auto bound = d.bounds.find(vcpu);
  for (std::uint32_t cpu : free) {
    if (used(cpu) || (bound != d.bounds.end() && !bound->second.contains(cpu))) continue;
    chosen.push_back(cpu);
    const bool found = exists_by_search(d, free, v + 1, chosen);
    chosen.pop_back();
    if (found) return true;
  }
  return false;
}

TEST(BoundedPinningProperty, PinsKeepEveryBoundAndPolicyAndMissNothingWherePolicyAllowsAnyPCpu) {
  std::mt19937 rng(20261206);
  int fitted = 0, refused = 0, searched = 0, bounded_fits = 0, emulator_bounded_fits = 0, emulator_near_fits = 0;
  for (int round = 0; round < 6000; ++round) {
    const Drawn d = draw(rng);
    std::string why;
    const PinningStyle style = round % 2 ? PinningStyle::Compact : PinningStyle::NovaOrder;
    const bool near_emulator = d.emulator_bound && d.reserve == 0;
    const auto pin = near_emulator
                         ? pin_dedicated_cpus_near_emulator(d.cell, d.vcpus, d.bounds, d.emulator_vcpus,
                                                            *d.emulator_bound, d.policy, &why, style)
                         : pin_dedicated_cpus_within(d.cell, d.vcpus, d.bounds,
                                                     d.emulator_bound ? &*d.emulator_bound : nullptr, d.policy,
                                                     d.reserve, &why, style);
    std::vector<std::uint32_t> free;
    for (auto cpu : d.cell.dedicated_cpus) {
      if (!d.cell.usage.pinned_cpus.contains(cpu)) free.push_back(cpu);
    }
    auto core_of = [&](std::uint32_t cpu) -> const CpuSet& {
      for (const auto& core : d.cell.siblings) {
        if (core.contains(cpu)) return core;
      }
      ADD_FAILURE() << "pCPU " << cpu << " is on no core";
      return d.cell.siblings.front();
    };
    auto free_threads = [&](const CpuSet& core) {
      std::size_t n = 0;
      for (auto cpu : core) n += d.cell.usage.pinned_cpus.contains(cpu) ? 0 : 1;
      return n;
    };
    if (pin) {
      ++fitted;
      if (!d.bounds.empty()) ++bounded_fits;
      EXPECT_TRUE(pin_dedicated_cpus(d.cell, d.vcpus, d.policy, d.reserve, nullptr).has_value())
          << "fits with bounds but not without, round " << round;
      ASSERT_EQ(pin->pinning.size(), d.vcpus.size()) << "round " << round;
      std::set<std::uint32_t> taken, cores_used;
      for (const auto& [vcpu, cpu] : pin->pinning) {
        EXPECT_TRUE(d.vcpus.contains(vcpu)) << "round " << round;
        EXPECT_TRUE(d.cell.dedicated_cpus.contains(cpu) && !d.cell.usage.pinned_cpus.contains(cpu)) << "round " << round;
        EXPECT_TRUE(taken.insert(cpu).second) << "pCPU " << cpu << " twice, round " << round;
        const auto bound = d.bounds.find(vcpu);
        if (bound != d.bounds.end()) {
          EXPECT_TRUE(bound->second.contains(cpu)) << "vCPU " << vcpu << " round " << round;
        }
        const CpuSet& core = core_of(cpu);
        if (d.policy == ThreadPolicy::Isolate) {
          EXPECT_EQ(free_threads(core), core.size()) << "isolate on a used core, round " << round;
          EXPECT_TRUE(cores_used.insert(core.first()).second) << "isolate: two vCPUs on one core, round " << round;
        }
        if (d.policy == ThreadPolicy::Require) {
          EXPECT_GE(free_threads(core), 2u) << "require, round " << round;
        }
      }
      EXPECT_EQ(pin->reserved.size(), d.reserve) << "round " << round;
      if (d.emulator_bound && d.reserve > 0) {
        ++emulator_bounded_fits;
        EXPECT_TRUE(pin->reserved.is_subset_of(*d.emulator_bound)) << "the emulator outside its bound, round " << round;
      }
      if (near_emulator) {
        ++emulator_near_fits;
        const bool reached = std::any_of(pin->pinning.begin(), pin->pinning.end(), [&](const auto& pair) {
          return d.emulator_vcpus.contains(pair.first) && d.emulator_bound->contains(pair.second);
        });
        EXPECT_TRUE(reached) << "no emulator vCPU within the emulator's bound, round " << round;
      }
      for (auto cpu : pin->reserved) {
        EXPECT_TRUE(d.cell.dedicated_cpus.contains(cpu) && !d.cell.usage.pinned_cpus.contains(cpu)) << "round " << round;
        EXPECT_EQ(taken.count(cpu), 0u) << "the emulator pCPU is a vCPU's, round " << round;
        if (d.policy == ThreadPolicy::Isolate) {
          EXPECT_EQ(cores_used.count(core_of(cpu).first()), 0u) << "round " << round;
        }
      }
    } else {
      ++refused;
      EXPECT_FALSE(why.empty()) << "round " << round;
    }
    if (d.policy == ThreadPolicy::Unset || d.policy == ThreadPolicy::Prefer) {
      ++searched;
      std::vector<std::uint32_t> chosen;
      EXPECT_EQ(pin.has_value(), exists_by_search(d, free, 0, chosen)) << "round " << round << ": " << why;
    }
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(fitted, 1500);
  EXPECT_GT(bounded_fits, 1000);
  EXPECT_GT(refused, 1000);
  EXPECT_GT(searched, 2500);
  EXPECT_GT(emulator_bounded_fits, 200);
  EXPECT_GT(emulator_near_fits, 200);
}

}  // namespace
}  // namespace numaplace

// SPDX-License-Identifier: LGPL-2.1-or-later
// Pinning dedicated vCPUs under Nova's thread policies, on hand-worked hosts.
#include "placement/fit/cpu_pinning.h"
#include "support/topology_builders.h"

#include <gtest/gtest.h>

namespace numaplace {
namespace {

using Pins = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

using testing::smt_cell;  // core i = {i, i + cores}

HostCell flat_cell(std::uint32_t cpus) { return testing::flat_cell(0, CpuSet::range(0, cpus - 1), 0); }

TEST(CpuPinning, PreferFillsWholeCoresFirst) {
  HostCell cell = smt_cell(4);  // cores {0,4} {1,5} {2,6} {3,7}
  auto pin = pin_dedicated_cpus(cell, CpuSet{0, 1, 2}, ThreadPolicy::Prefer, 0, nullptr);
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(pin->pinning, (Pins{{0, 0}, {1, 4}, {2, 1}}));
  EXPECT_TRUE(pin->reserved.empty());
}

TEST(CpuPinning, PreferFallsBackToHalfFreeCores) {
  HostCell cell = smt_cell(3);  // cores {0,3} {1,4} {2,5}
  cell.usage.pinned_cpus = CpuSet{0, 1, 2};
  // Only one thread of each core is free: 2 vCPUs go on threads 3 and 4.
  auto pin = pin_dedicated_cpus(cell, CpuSet{0, 1}, ThreadPolicy::Unset, 0, nullptr);
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(pin->pinning, (Pins{{0, 3}, {1, 4}}));
}

TEST(CpuPinning, IsolateTakesOneThreadOfEachFullyFreeCore) {
  HostCell cell = smt_cell(3);
  cell.usage.pinned_cpus = CpuSet{3};  // core {0,3} is half used
  auto pin = pin_dedicated_cpus(cell, CpuSet{0, 1}, ThreadPolicy::Isolate, 0, nullptr);
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(pin->pinning, (Pins{{0, 1}, {1, 2}}));
  std::string why;
  EXPECT_FALSE(pin_dedicated_cpus(cell, CpuSet{0, 1, 2}, ThreadPolicy::Isolate, 0, &why).has_value());
  EXPECT_NE(why.find("2 fully free cores"), std::string::npos) << why;
}

TEST(CpuPinning, IsolateReservesTheEmulatorCpuOffThePinnedCores) {
  HostCell cell = smt_cell(3);
  auto pin = pin_dedicated_cpus(cell, CpuSet{0, 1}, ThreadPolicy::Isolate, 1, nullptr);
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(pin->pinning, (Pins{{0, 0}, {1, 1}}));
  EXPECT_EQ(pin->reserved, (CpuSet{2}));  // 3 and 4 are siblings of pinned CPUs
  // With three vCPUs every core is touched: no emulator CPU left.
  EXPECT_FALSE(pin_dedicated_cpus(cell, CpuSet{0, 1, 2}, ThreadPolicy::Isolate, 1, nullptr).has_value());
}

TEST(CpuPinning, IsolateOnAnSmtHostNeedsOneCpuSet) {
  HostCell cell = smt_cell(2);
  cell.shared_cpus = CpuSet{0, 2};
  cell.dedicated_cpus = CpuSet{1, 3};
  std::string why;
  EXPECT_FALSE(pin_dedicated_cpus(cell, CpuSet{0}, ThreadPolicy::Isolate, 0, &why).has_value());
  EXPECT_NE(why.find("shared and dedicated"), std::string::npos) << why;
  // Without SMT, isolate is plain pinning whatever the sets.
  HostCell flat = flat_cell(4);
  flat.shared_cpus = CpuSet{0, 1};
  flat.dedicated_cpus = CpuSet{2, 3};
  auto pin = pin_dedicated_cpus(flat, CpuSet{0, 1}, ThreadPolicy::Isolate, 0, nullptr);
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(pin->pinning, (Pins{{0, 2}, {1, 3}}));
}

TEST(CpuPinning, RequireUsesSiblingPairsOnly) {
  HostCell cell = smt_cell(2);  // {0,2} {1,3}
  auto pin = pin_dedicated_cpus(cell, CpuSet{0, 1, 2}, ThreadPolicy::Require, 0, nullptr);
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(pin->pinning, (Pins{{0, 0}, {1, 2}, {2, 1}}));
  cell.usage.pinned_cpus = CpuSet{0, 1};  // lone threads 2 and 3 remain
  EXPECT_FALSE(pin_dedicated_cpus(cell, CpuSet{0}, ThreadPolicy::Require, 0, nullptr).has_value());
  EXPECT_TRUE(pin_dedicated_cpus(cell, CpuSet{0}, ThreadPolicy::Prefer, 0, nullptr).has_value());
  std::string why;
  EXPECT_FALSE(pin_dedicated_cpus(flat_cell(8), CpuSet{0}, ThreadPolicy::Require, 0, &why).has_value());
  EXPECT_NE(why.find("SMT"), std::string::npos) << why;
  EXPECT_NE(why.find("among the pCPUs the guest may use"), std::string::npos) << why;
}

// A mixed guest's cell that hw:cpu_dedicated_mask leaves without a dedicated vCPU fits nowhere,
// as in Nova (numa_fit_instance_to_host gives None); the reason says what to change.
TEST(CpuPinning, ACellWithoutDedicatedVcpusNamesTheMask) {
  std::string why;
  EXPECT_FALSE(pin_dedicated_cpus(smt_cell(4), CpuSet{}, ThreadPolicy::Prefer, 0, &why).has_value());
  EXPECT_NE(why.find("hw:cpu_dedicated_mask"), std::string::npos) << why;
}

TEST(CpuPinning, EmulatorCpuNeedsOneMoreFreeCpu) {
  HostCell cell = flat_cell(3);
  auto pin = pin_dedicated_cpus(cell, CpuSet{0, 1}, ThreadPolicy::Unset, 1, nullptr);
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(pin->reserved, (CpuSet{2}));
  cell.usage.pinned_cpus = CpuSet{1};
  EXPECT_FALSE(pin_dedicated_cpus(cell, CpuSet{0, 1}, ThreadPolicy::Unset, 1, nullptr).has_value());
}

TEST(CpuPinning, OnlyCpusOfTheDedicatedSetArePinned) {
  HostCell cell = flat_cell(4);
  cell.dedicated_cpus = CpuSet{2, 3};
  auto pin = pin_dedicated_cpus(cell, CpuSet{5, 6}, ThreadPolicy::Unset, 0, nullptr);
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(pin->pinning, (Pins{{5, 2}, {6, 3}}));
  EXPECT_FALSE(pin_dedicated_cpus(cell, CpuSet{0, 1, 2}, ThreadPolicy::Unset, 0, nullptr).has_value());
}

TEST(CpuPinning, CellsWithoutSiblingInformationPinEachCpuAlone) {
  HostCell cell = flat_cell(2);
  cell.siblings.clear();
  auto pin = pin_dedicated_cpus(cell, CpuSet{0, 1}, ThreadPolicy::Isolate, 0, nullptr);
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(pin->pinning, (Pins{{0, 0}, {1, 1}}));
}

}  // namespace
}  // namespace numaplace

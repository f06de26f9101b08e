// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/lifecycle/admission.h"

#include <gtest/gtest.h>

namespace numaplace {
namespace {

constexpr std::uint64_t kGiB = 1024 * 1024;

// One cell of 4 cores x 2 threads (siblings {0,4} {1,5} ...), 16 GiB: 8 GiB of 4 KiB pages, 8 x 1 GiB.
HostTopology one_cell_host() {
  HostTopology host;
  HostCell cell;
  cell.id = 3;
  cell.cpus = CpuSet::range(0, 7);
  cell.shared_cpus = cell.cpus;
  cell.dedicated_cpus = cell.cpus;
  for (std::uint32_t c = 0; c < 4; ++c) cell.siblings.push_back(CpuSet{c, c + 4});
  cell.memory_kib = 16 * kGiB;
  cell.pages = {PagePool{4, 8 * kGiB / 4, 0, 0}, PagePool{kGiB, 8, 0, 0}};
  host.cells.push_back(cell);
  return host;
}

GuestTopology dedicated_guest(ThreadPolicy policy) {
  GuestTopology guest;
  guest.cpu_policy = CpuPolicy::Dedicated;
  guest.thread_policy = policy;
  GuestCell cell;
  cell.cpus = CpuSet{0, 1};
  cell.dedicated_cpus = cell.cpus;
  cell.memory_kib = 2 * kGiB;
  guest.cells.push_back(cell);
  return guest;
}

Placement pinned_on(std::vector<std::pair<std::uint32_t, std::uint32_t>> pins, std::uint64_t memory_kib) {
  CellPlacement cell;
  cell.host_cell = 3;
  cell.guest_cpus = CpuSet{0, 1};
  cell.memory_kib = memory_kib;
  cell.pinning = std::move(pins);
  return Placement{{cell}};
}

TEST(Admission, PinnedGuestTakesItsPcpusAndMemoryFromTheSmallestPages) {
  HostTopology host = one_cell_host();
  ASSERT_TRUE(admit_placement(host, dedicated_guest(ThreadPolicy::Prefer), pinned_on({{0, 0}, {1, 4}}, 2 * kGiB)));
  const HostCell& cell = host.cells[0];
  EXPECT_EQ(cell.usage.pinned_cpus, (CpuSet{0, 4}));
  EXPECT_EQ(cell.usage.shared_cpus, 0.0);
  EXPECT_EQ(cell.usage.memory_kib, 2 * kGiB);
  EXPECT_EQ(cell.pages[0].used, 2 * kGiB / 4);
  EXPECT_EQ(cell.pages[1].used, 0u);
}

TEST(Admission, IsolateTakesTheWholeCoreOfEveryPinnedPcpu) {
  HostTopology host = one_cell_host();
  ASSERT_TRUE(admit_placement(host, dedicated_guest(ThreadPolicy::Isolate), pinned_on({{0, 0}, {1, 1}}, 2 * kGiB)));
  EXPECT_EQ(host.cells[0].usage.pinned_cpus, (CpuSet{0, 1, 4, 5}));
}

TEST(Admission, HugePageGuestUsesPagesAndStillCountsItsMemory) {
  HostTopology host = one_cell_host();
  GuestTopology guest;
  guest.cpu_policy = CpuPolicy::Shared;
  GuestCell gc;
  gc.cpus = CpuSet{0, 1, 2};
  gc.memory_kib = 3 * kGiB;
  gc.pagesize = kPageSizeLarge;
  guest.cells.push_back(gc);
  CellPlacement placed;
  placed.host_cell = 3;
  placed.guest_cpus = gc.cpus;
  placed.memory_kib = gc.memory_kib;
  placed.pagesize_kib = static_cast<std::int64_t>(kGiB);
  ASSERT_TRUE(admit_placement(host, guest, Placement{{placed}}));
  const HostCell& cell = host.cells[0];
  EXPECT_EQ(cell.pages[1].used, 3u);
  EXPECT_EQ(cell.pages[0].used, 0u);
  EXPECT_EQ(cell.usage.memory_kib, 3 * kGiB);
  EXPECT_EQ(cell.usage.shared_cpus, 3.0);
  EXPECT_TRUE(cell.usage.pinned_cpus.empty());
}

TEST(Admission, PinningAHeldPcpuIsRefusedAndChangesNothing) {
  HostTopology host = one_cell_host();
  ASSERT_TRUE(admit_placement(host, dedicated_guest(ThreadPolicy::Isolate), pinned_on({{0, 0}, {1, 1}}, kGiB)));
  const HostTopology before = host;
  // pCPU 5 is the sibling of 1, taken by the isolate guest.
  auto second = admit_placement(host, dedicated_guest(ThreadPolicy::Prefer), pinned_on({{0, 2}, {1, 5}}, kGiB));
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().name, "PinningCollision");
  EXPECT_NE(second.error().message.find("5"), std::string::npos);
  EXPECT_EQ(host.cells[0].usage.pinned_cpus, before.cells[0].usage.pinned_cpus);
  EXPECT_EQ(host.cells[0].usage.memory_kib, before.cells[0].usage.memory_kib);
}

TEST(Admission, AHostCellTheHostLacksIsNamed) {
  HostTopology host = one_cell_host();
  Placement placement = pinned_on({{0, 0}}, kGiB);
  placement.cells[0].host_cell = 9;
  auto result = admit_placement(host, dedicated_guest(ThreadPolicy::Prefer), placement);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().name, "UnknownHostCell");
  EXPECT_EQ(host.cells[0].usage.memory_kib, 0u);
}

}  // namespace
}  // namespace numaplace

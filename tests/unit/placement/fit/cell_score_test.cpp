// SPDX-License-Identifier: LGPL-2.1-or-later
// Cell scoring (cell_score.h) on single cells small enough to work out by hand: the load a
// guest cell adds (milli-pCPUs, the memory pool it draws from) and each strategy's score of it.
// The expected figures come from the rules in cell_score.h and kube-scheduler's functions
// (least allocated: (capacity - used) x 100 / capacity, most allocated: used x 100 / capacity,
// each floored, then the weighted mean floored), worked out in the comments.
#include <gtest/gtest.h>

#include "placement/fit/cell_score.h"

namespace numaplace {
namespace {

constexpr std::uint64_t kGiB = 1024 * 1024;

// 8 CPUs (shared and dedicated alike), 8 GiB; 4 floating vCPUs and 2 GiB already there.
HostCell busy_floating_cell() {
  HostCell cell;
  cell.id = 0;
  cell.cpus = CpuSet::range(0, 7);
  cell.shared_cpus = cell.cpus;
  cell.dedicated_cpus = cell.cpus;
  cell.memory_kib = 8 * kGiB;
  cell.usage.shared_cpus = 4;
  cell.usage.memory_kib = 2 * kGiB;
  return cell;
}

GuestCell guest_cell(std::uint32_t vcpus, std::uint64_t memory_kib, std::uint32_t dedicated = 0) {
  GuestCell cell;
  cell.cpus = CpuSet::range(0, vcpus - 1);
  if (dedicated > 0) cell.dedicated_cpus = CpuSet::range(0, dedicated - 1);
  cell.memory_kib = memory_kib;
  return cell;
}

TEST(CellScore, FloatingLoadCountsVcpusOverTheCpuRatioAndMemoryOverTheRamRatio) {
  HostTopology host;  // ratios 16 (CPU) and 1.5 (RAM), Nova's defaults
  host.cells = {busy_floating_cell()};
  GuestTopology guest;  // no CPU policy: the guest floats
  guest.cells = {guest_cell(4, 2 * kGiB)};
  const CellLoad load = cell_load_after(host, host.cells[0], guest, guest.cells[0], 0, false);
  // CPU: 8 CPUs = 8000 milli; (4 floating + 4 new) / 16 = 0.5 pCPU = 500 milli.
  EXPECT_EQ(load.cpu_capacity_milli, 8000);
  EXPECT_EQ(load.cpu_used_milli, 500);
  // Memory: the cell floats and pins nothing, so 8 GiB x 1.5 = 12 GiB; 2 GiB + 2 GiB used.
  EXPECT_EQ(load.memory_capacity_kib, static_cast<std::int64_t>(12 * kGiB));
  EXPECT_EQ(load.memory_used_kib, static_cast<std::int64_t>(4 * kGiB));
  EXPECT_EQ(load.cpu_percent(), 6);      // 500 x 100 / 8000 = 6.25
  EXPECT_EQ(load.memory_percent(), 33);  // 4 / 12 = 33.3 %
}

TEST(CellScore, AZeroCpuRatioCountsAsOne) {
  HostTopology host;
  host.ratio.cpu = 0;
  host.cells = {busy_floating_cell()};
  GuestTopology guest;
  guest.cells = {guest_cell(4, 2 * kGiB)};
  // (4 + 4) / 1 = 8 pCPUs = 8000 milli, the whole cell.
  EXPECT_EQ(cell_load_after(host, host.cells[0], guest, guest.cells[0], 0, false).cpu_used_milli, 8000);
}

TEST(CellScore, PinnedLoadCountsWholePcpusAndTheEmulatorPcpu) {
  HostTopology host;
  HostCell cell = busy_floating_cell();
  cell.cpus = CpuSet::range(0, 3);
  cell.shared_cpus = cell.cpus;
  cell.dedicated_cpus = cell.cpus;
  cell.memory_kib = 4 * kGiB;
  cell.usage = {};
  cell.usage.pinned_cpus = CpuSet{0, 1};
  cell.usage.memory_kib = 1 * kGiB;
  host.cells = {cell};
  GuestTopology guest;
  guest.cpu_policy = CpuPolicy::Dedicated;
  guest.cells = {guest_cell(1, 1 * kGiB, 1)};
  // 2 pinned + 1 new = 3 of 4 pCPUs; pinned guests never overcommit memory: 2 of 4 GiB.
  const CellLoad plain = cell_load_after(host, host.cells[0], guest, guest.cells[0], 0, false);
  EXPECT_EQ(plain.cpu_used_milli, 3000);
  EXPECT_EQ(plain.cpu_capacity_milli, 4000);
  EXPECT_EQ(plain.memory_capacity_kib, static_cast<std::int64_t>(4 * kGiB));
  EXPECT_EQ(plain.memory_used_kib, static_cast<std::int64_t>(2 * kGiB));
  // The emulator pCPU is one more whole pCPU: 4 of 4.
  const CellLoad with_emulator = cell_load_after(host, host.cells[0], guest, guest.cells[0], 0, true);
  EXPECT_EQ(with_emulator.cpu_used_milli, 4000);
  // Pack: cpu 3000 x 100 / 4000 = 75, memory 50: (75 + 50) / 2 = 62 (62.5 floored);
  // with the emulator pCPU cpu is 100: (100 + 50) / 2 = 75.
  EXPECT_EQ(score_cell_load(plain, Strategy::Pack, nullptr, {}), 62);
  EXPECT_EQ(score_cell_load(with_emulator, Strategy::Pack, nullptr, {}), 75);
}

TEST(CellScore, HugePagesDrawOnTheirPoolExactly) {
  HostTopology host;
  HostCell cell = busy_floating_cell();
  cell.pages = {{4, 1024 * 1024, 0, 0}, {2048, 1024, 128, 128}};
  host.cells = {cell};
  GuestTopology guest;
  guest.cells = {guest_cell(1, 1 * kGiB)};
  const CellLoad load = cell_load_after(host, host.cells[0], guest, guest.cells[0], 2048, false);
  // Capacity: 1024 pages x 2 MiB = 2 GiB; used: (128 + 128) pages x 2 MiB = 512 MiB, plus 1 GiB.
  EXPECT_EQ(load.memory_capacity_kib, static_cast<std::int64_t>(2 * kGiB));
  EXPECT_EQ(load.memory_used_kib, static_cast<std::int64_t>(kGiB + kGiB / 2));
  EXPECT_EQ(load.memory_percent(), 75);
}

TEST(CellScore, EachStrategyScoresTheLoadByItsOwnRule) {
  // cpu 500 of 8000 milli, memory 4 of 12 GiB (the floating cell above).
  const CellLoad load{500, 8000, static_cast<std::int64_t>(4 * kGiB), static_cast<std::int64_t>(12 * kGiB)};
  // Spread: cpu 7500 x 100 / 8000 = 93 (93.75), memory 8 x 100 / 12 = 66 (66.7): (93 + 66) / 2 = 79.
  EXPECT_EQ(score_cell_load(load, Strategy::Spread, nullptr, {}), 79);
  // Pack: cpu 6 (6.25), memory 33 (33.3): (6 + 33) / 2 = 19.
  EXPECT_EQ(score_cell_load(load, Strategy::Pack, nullptr, {}), 19);
  // Pack with cpu weighing 3: (6 x 3 + 33 x 1) / 4 = 12 (12.75).
  EXPECT_EQ(score_cell_load(load, Strategy::Pack, nullptr, {3, 1}), 12);
  // A weight of 0 leaves the resource out: cpu alone, 6.
  EXPECT_EQ(score_cell_load(load, Strategy::Pack, nullptr, {1, 0}), 6);
  // Nova compares nothing; adaptive must be resolved first, and ratio without a shape scores nothing.
  EXPECT_EQ(score_cell_load(load, Strategy::Nova, nullptr, {}), 0);
  EXPECT_EQ(score_cell_load(load, Strategy::Adaptive, nullptr, {}), 0);
  EXPECT_EQ(score_cell_load(load, Strategy::Ratio, nullptr, {}), 0);
}

TEST(CellScore, APercentOfNoCapacityIsZeroAndAboveCapacityIsAHundred) {
  EXPECT_EQ(CellLoad{}.cpu_percent(), 0);
  EXPECT_EQ(CellLoad{}.memory_percent(), 0);
  // Used beyond capacity is held at capacity: 100 %, not 150 %.
  EXPECT_EQ((CellLoad{1500, 1000, 0, 0}).cpu_percent(), 100);
}

}  // namespace
}  // namespace numaplace

// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/lifecycle/replacement.h"

#include <gtest/gtest.h>

namespace numaplace {
namespace {

constexpr std::uint64_t kGiB = 1024 * 1024;

// Three cells of 4 cores x 2 threads (siblings {b+c, b+4+c}), 16 GiB each.
HostTopology three_cells() {
  HostTopology host;
  for (std::uint32_t i = 0; i < 3; ++i) {
    HostCell cell;
    cell.id = i;
    const std::uint32_t base = 8 * i;
    cell.cpus = CpuSet::range(base, base + 7);
    cell.shared_cpus = cell.cpus;
    cell.dedicated_cpus = cell.cpus;
    for (std::uint32_t c = 0; c < 4; ++c) cell.siblings.push_back(CpuSet{base + c, base + 4 + c});
    cell.memory_kib = 16 * kGiB;
    for (std::uint32_t j = 0; j < 3; ++j) cell.distances.push_back(i == j ? 10 : 21);
    host.cells.push_back(cell);
  }
  return host;
}

// Two guest cells of 2 dedicated vCPUs and 2 GiB each.
GuestTopology two_cell_dedicated(ThreadPolicy policy = ThreadPolicy::Prefer) {
  GuestTopology guest;
  guest.cpu_policy = CpuPolicy::Dedicated;
  guest.thread_policy = policy;
  for (std::uint32_t i = 0; i < 2; ++i) {
    GuestCell cell;
    cell.id = i;
    cell.cpus = CpuSet{2 * i, 2 * i + 1};
    cell.dedicated_cpus = cell.cpus;
    cell.memory_kib = 2 * kGiB;
    guest.cells.push_back(cell);
  }
  return guest;
}

Placement first_placement(const HostTopology& host, const GuestTopology& guest) {
  FitResult fit = fit_guest(host, guest);
  EXPECT_TRUE(fit.placement.has_value());
  return *fit.placement;
}

CpuSet pinned_pcpus(const CellPlacement& cell) {
  CpuSet pcpus;
  for (const auto& [vcpu, pcpu] : cell.pinning) pcpus.insert(pcpu);
  return pcpus;
}

TEST(Replacement, AnUnchangedHostKeepsEverything) {
  const HostTopology host = three_cells();
  const GuestTopology guest = two_cell_dedicated();
  const Placement recorded = first_placement(host, guest);
  // A scored strategy would choose otherwise on its own; the record still wins.
  FitOptions pack;
  pack.strategy = Strategy::Pack;
  Replacement again = place_again(host, guest, recorded, pack);
  EXPECT_EQ(again.kind, ReplacementKind::Kept);
  ASSERT_TRUE(again.fit.placement);
  for (std::size_t g = 0; g < 2; ++g) {
    EXPECT_EQ(again.fit.placement->cells[g].host_cell, recorded.cells[g].host_cell);
    EXPECT_EQ(again.fit.placement->cells[g].pinning, recorded.cells[g].pinning);
  }
}

TEST(Replacement, ATakenPinMovesOnlyItsCellsPinsAndKeepsItsHostCell) {
  HostTopology host = three_cells();
  const GuestTopology guest = two_cell_dedicated();
  const Placement recorded = first_placement(host, guest);
  const std::uint32_t taken = recorded.cells[0].pinning[0].second;
  for (auto& cell : host.cells) {
    if (cell.id == recorded.cells[0].host_cell) cell.usage.pinned_cpus.insert(taken);
  }
  Replacement again = place_again(host, guest, recorded, {});
  EXPECT_EQ(again.kind, ReplacementKind::Repinned);
  EXPECT_EQ(again.repinned, (std::vector<std::uint32_t>{0}));
  EXPECT_NE(again.why.find(std::to_string(taken)), std::string::npos) << again.why;
  ASSERT_TRUE(again.fit.placement);
  const auto& cells = again.fit.placement->cells;
  EXPECT_EQ(cells[0].host_cell, recorded.cells[0].host_cell);
  EXPECT_FALSE(pinned_pcpus(cells[0]).contains(taken));
  EXPECT_EQ(cells[1].pinning, recorded.cells[1].pinning);  // untouched
}

TEST(Replacement, IsolateCountsTheSiblingsOfItsPins) {
  HostTopology host = three_cells();
  const GuestTopology guest = two_cell_dedicated(ThreadPolicy::Isolate);
  const Placement recorded = first_placement(host, guest);
  // Another guest pins the sibling thread of guest cell 1's first pCPU.
  const std::uint32_t pcpu = recorded.cells[1].pinning[0].second;
  for (auto& cell : host.cells) {
    if (cell.id != recorded.cells[1].host_cell) continue;
    for (const auto& core : cell.siblings) {
      if (core.contains(pcpu)) cell.usage.pinned_cpus.insert(core.minus(CpuSet{pcpu}).first());
    }
  }
  Replacement again = place_again(host, guest, recorded, {});
  EXPECT_EQ(again.kind, ReplacementKind::Repinned);
  EXPECT_EQ(again.repinned, (std::vector<std::uint32_t>{1}));
}

TEST(Replacement, ACellThatNoLongerFitsMovesTheGuest) {
  HostTopology host = three_cells();
  const GuestTopology guest = two_cell_dedicated();
  const Placement recorded = first_placement(host, guest);
  for (auto& cell : host.cells) {
    if (cell.id == recorded.cells[1].host_cell) cell.usage.memory_kib = 15 * kGiB;  // 1 GiB left, 2 needed
  }
  Replacement again = place_again(host, guest, recorded, {});
  EXPECT_EQ(again.kind, ReplacementKind::Moved);
  EXPECT_NE(again.why.find("guest cell 1"), std::string::npos) << again.why;
  ASSERT_TRUE(again.fit.placement);
  EXPECT_NE(again.fit.placement->cells[1].host_cell, recorded.cells[1].host_cell);
}

TEST(Replacement, ARecordOfAnotherShapeIsNotUsed) {
  const HostTopology host = three_cells();
  const GuestTopology guest = two_cell_dedicated();
  Placement recorded = first_placement(host, guest);
  recorded.cells[1].memory_kib = 4 * kGiB;  // the guest was resized since
  Replacement again = place_again(host, guest, recorded, {});
  EXPECT_EQ(again.kind, ReplacementKind::Fresh);
  EXPECT_NE(again.why.find("differs"), std::string::npos) << again.why;
  ASSERT_TRUE(again.fit.placement);
  EXPECT_EQ(again.fit.placement->cells[1].memory_kib, 2 * kGiB);
}

TEST(Replacement, ARecordedCellTheHostLacksMovesTheGuest) {
  HostTopology host = three_cells();
  const GuestTopology guest = two_cell_dedicated();
  Placement recorded = first_placement(host, guest);
  recorded.cells[0].host_cell = 7;  // recorded on another host
  Replacement again = place_again(host, guest, recorded, {});
  EXPECT_EQ(again.kind, ReplacementKind::Moved);
  EXPECT_NE(again.why.find("no cell 7"), std::string::npos) << again.why;
  ASSERT_TRUE(again.fit.placement);
}

}  // namespace
}  // namespace numaplace

// SPDX-License-Identifier: LGPL-2.1-or-later
// "A host rank ranks is one place confines the guest on", for guests without NUMA keys: random used
// hosts of 1 to 6 cells (pCPUs pinned by dedicated guests, floating load up to beyond the CPU
// ratio, memory in use, huge page pools carved out of the cells' memory, now and then a cell without
// CPUs, now and then no ratio limits, now and then Nova's model) and a guest of small or huge pages.
// rank must say it fits exactly when the room worked out here, from the drawn host alone, holds it:
// vCPUs within the CPU ratio on the pCPUs no dedicated guest holds (Nova's model: on every CPU),
// memory physically free in small pages within the RAM ratio (Nova's model: the RAM ratio alone,
// none without ratios) or free in pages of its size, summed over the cells with CPUs; and place must
// agree.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "placement/lifecycle/default_placement.h"
#include "placement/lifecycle/host_ranking.h"
#include "support/topology_builders.h"

namespace numaplace {
namespace {

TEST(RankFloatingProperty, RankFitsAGuestWithoutNumaKeysExactlyWhereItsCellsHoldIt) {
  std::mt19937 rng(20261207);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  std::map<std::string, int> outcomes;
  for (int round = 0; round < 3000; ++round) {
    HostTopology host;
    host.ratio.enforced = pick(0, 5) != 0;
    // Nova's model now and then: floating vCPUs on every shared CPU, memory held to the RAM ratio.
    const bool nova = pick(0, 2) == 0;
    if (nova) host.accounting = Accounting::Nova;
    const std::uint64_t cells = pick(1, 6), threads = pick(1, 6);
    double load_room = 0, small_room = 0, huge_room = 0;
    for (std::uint64_t i = 0; i < cells; ++i) {
      const bool cpuless = cells > 1 && pick(0, 6) == 0;
      const auto first = static_cast<std::uint32_t>(i * threads);
      HostCell cell = testing::flat_cell(static_cast<std::uint32_t>(i),
                                         cpuless ? CpuSet{} : CpuSet::range(first, first + static_cast<std::uint32_t>(threads) - 1),
                                         pick(1, 8) * testing::kGiBInKiB);
      std::uint64_t pinned = 0;
      for (std::uint32_t c : cell.cpus) {
        if (pick(0, 2) == 0) {
          cell.usage.pinned_cpus.insert(c);
          ++pinned;
        }
      }
      // 2 MiB pages take up to half the cell; the small pages are the rest.
      const std::uint64_t huge_pages = pick(0, 1) == 0 ? 0 : pick(0, cell.memory_kib / 2048 / 2);
      const std::uint64_t small_kib = cell.memory_kib - huge_pages * 2048;
      if (huge_pages > 0) {
        cell.pages = {PagePool{4, small_kib / 4, 0, 0}, PagePool{2048, huge_pages, pick(0, huge_pages), 0}};
      }
      cell.usage.shared_cpus = static_cast<double>(pick(0, threads * 20));
      cell.usage.memory_kib = pick(0, cell.memory_kib);
      host.cells.push_back(cell);
      if (cpuless) continue;  // never chosen for a guest without NUMA keys
      const double floating = static_cast<double>(nova ? threads : threads - pinned);
      load_room += host.ratio.enforced ? std::max(0.0, floating * 16.0 - cell.usage.shared_cpus) : 1e18;
      const double ratio_room = std::max(0.0, 1.5 * static_cast<double>(cell.memory_kib) - static_cast<double>(cell.usage.memory_kib));
      double physical = small_kib > cell.usage.memory_kib ? static_cast<double>(small_kib - cell.usage.memory_kib) : 0.0;
      if (host.ratio.enforced) physical = std::min(physical, ratio_room);
      small_room += !nova ? physical : host.ratio.enforced ? ratio_room : 1e18;
      if (huge_pages > 0) huge_room += static_cast<double>((huge_pages - cell.pages[1].used) * 2048);
    }
    GuestRequest request;
    request.vcpus = static_cast<std::uint32_t>(pick(1, cells * threads * 8));
    request.memory_kib = pick(1, 24) * 512 * 1024;
    RankOptions options;
    options.floating_page_kib = pick(0, 3) == 0 ? 2048 : 0;
    const bool holds = load_room >= request.vcpus &&
                       (options.floating_page_kib == 2048 ? huge_room : small_room) >= static_cast<double>(request.memory_kib);
    auto ranked = rank_hosts(std::span<const HostTopology>(&host, 1), request, options);
    ASSERT_TRUE(ranked.ok()) << ranked.error().message;
    ASSERT_EQ(ranked->size(), 1U);
    const RankedHost& answer = ranked->front();
    const std::string context = "round " + std::to_string(round) + ": " + std::to_string(request.vcpus) + " vCPUs, " +
                                std::to_string(request.memory_kib) + " KiB in " +
                                std::to_string(options.floating_page_kib) + " KiB pages; room " + std::to_string(load_room) +
                                " vCPUs, " + std::to_string(small_room) + " KiB small, " + std::to_string(huge_room) +
                                " KiB huge; rank: " + (answer.fits ? "fits" : answer.reason);
    EXPECT_EQ(answer.fits, holds) << context;
    FloatingGuest guest;
    guest.vcpus = request.vcpus;
    guest.memory_kib = request.memory_kib;
    guest.hugepage_kib = options.floating_page_kib;
    auto placed = place_floating_guest(host, guest, {});
    EXPECT_EQ(placed.ok(), answer.fits) << context << "; place: " << (placed.ok() ? "placed" : placed.error().message);
    ++outcomes[answer.fits ? "fits" : answer.reason.substr(0, 7)];
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(outcomes["fits"], 400) << outcomes["fits"];
  EXPECT_GT(outcomes["memory:"], 300) << outcomes["memory:"];
  EXPECT_GT(outcomes["vCPUs: "], 150) << outcomes["vCPUs: "];
}

}  // namespace
}  // namespace numaplace

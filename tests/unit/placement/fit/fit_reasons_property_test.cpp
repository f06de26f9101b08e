// SPDX-License-Identifier: LGPL-2.1-or-later
// FitOptions::reasons (fit.h): a fit that writes no reasons (np_fit_packed_hosts, np_fit_hosts_cells)
// gives the placement the fit with reasons gives, under every strategy, on random hosts (packed
// cells: shared and dedicated CPUs, siblings, pins, page pools, ratios) and guests derived from
// random flavors (NUMA cells, CPU and thread policies, page sizes, emulator threads); it writes no
// rejection, while the fit with reasons writes one for each pair that does not fit. Both fits run on
// one thread one after the other, so the pair matrices they share (kept per thread) are also
// checked for what one call leaves to the next.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "placement/fit/fit.h"
#include "placement/request/guest_topology.h"
#include "plugin/sources/host_cells.h"
#include "support/described_host.h"
#include "support/topology_builders.h"

namespace numaplace {
namespace {

using testing::Described;
using testing::random_host;
using testing::words_of;

// A guest request of 2 to 12 vCPUs and 1 to 8 GiB with random NUMA and CPU specs; derive_guest_topology may refuse it.
GuestRequest random_request(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  SpecMap specs;
  if (pick(0, 2) != 0) specs["hw:numa_nodes"] = std::to_string(pick(1, 3));
  if (pick(0, 1) == 0) {
    specs["hw:cpu_policy"] = "dedicated";
    const char* policies[] = {"prefer", "isolate", "require"};
    if (pick(0, 1) == 0) specs["hw:cpu_thread_policy"] = policies[pick(0, 2)];
    if (pick(0, 4) == 0) specs["hw:emulator_threads_policy"] = "isolate";
  }
  if (pick(0, 4) == 0) specs["hw:mem_page_size"] = pick(0, 1) ? "large" : "2048";
  GuestRequest request = testing::request_of(static_cast<std::uint32_t>(pick(1, 6) * 2), specs);
  request.memory_kib = static_cast<std::uint64_t>(pick(1, 8)) * testing::kGiBInKiB;
  return request;
}

// What a placement decides, as text: each cell's host cell, page size, memory, CPUs and pins.
std::string placed(const Placement& placement) {
  std::string out;
  for (const CellPlacement& cell : placement.cells) {
    out += std::to_string(cell.guest_cell) + "->" + std::to_string(cell.host_cell) + " page " +
           std::to_string(cell.pagesize_kib) + " mem " + std::to_string(cell.memory_kib) + " cpus " +
           to_cpu_list(cell.host_cpus) + " reserved " + to_cpu_list(cell.cpuset_reserved) + " isolated " +
           to_cpu_list(cell.isolated_cpus) + " pins";
    for (const auto& [vcpu, pcpu] : cell.pinning) out += " " + std::to_string(vcpu) + ":" + std::to_string(pcpu);
    out += "; ";
  }
  return out;
}

TEST(FitReasonsProperty, AFitWithoutReasonsPlacesAsTheFitWithThem) {
  std::mt19937 rng(20261205);
  int fitted = 0, refused = 0;
  const Strategy strategies[] = {Strategy::Nova, Strategy::Pack, Strategy::Spread, Strategy::Adaptive};
  for (int round = 0; round < 3000; ++round) {
    const Described described = random_host(rng);
    const auto words = words_of(described);
    auto host = plugin::host_from_cells(words, described.ratios ? described.ratios->first : std::nan(""),
                                        described.ratios ? described.ratios->second : std::nan(""), "");
    ASSERT_TRUE(host) << host.error().message;
    auto guest = derive_guest_topology(random_request(rng));
    if (!guest || !*guest) continue;
    FitOptions with;
    with.strategy = strategies[round % 4];
    FitOptions without = with;
    without.reasons = false;
    // Without first, then with, then without again: each call starts from what the last one left.
    const FitResult before = fit_guest(*host, **guest, without);
    const FitResult full = fit_guest(*host, **guest, with);
    const FitResult after = fit_guest(*host, **guest, without);
    const std::string where = "round " + std::to_string(round);
    ASSERT_EQ(full.placement.has_value(), before.placement.has_value()) << where << ": " << full.summary;
    ASSERT_EQ(full.placement.has_value(), after.placement.has_value()) << where;
    EXPECT_TRUE(before.rejections.empty()) << where;
    EXPECT_TRUE(after.rejections.empty()) << where;
    for (const CellRejection& rejection : full.rejections) EXPECT_FALSE(rejection.reason.empty()) << where;
    if (full.placement) {
      EXPECT_EQ(placed(*before.placement), placed(*full.placement)) << where;
      EXPECT_EQ(placed(*after.placement), placed(*full.placement)) << where;
      ++fitted;
    } else {
      EXPECT_FALSE(full.rejections.empty() && full.summary.empty()) << where;  // says why
      ++refused;
    }
  }
  // Both kinds of outcome drawn often, or the comparison says little.
  EXPECT_GT(fitted, 200) << refused << " refused";
  EXPECT_GT(refused, 200) << fitted << " fitted";
}

}  // namespace
}  // namespace numaplace

// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/fit/fit.h"
#include "support/topology_builders.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <regex>

namespace numaplace {
namespace {

HostCell make_cell(std::uint32_t id, std::uint32_t first_cpu, std::uint32_t cpus, std::uint64_t memory_mib) {
  return testing::flat_cell(id, CpuSet::range(first_cpu, first_cpu + cpus - 1), memory_mib * testing::kMiBInKiB);
}

// Guest cells of {vCPUs, MiB}.
GuestTopology guest(std::vector<std::pair<std::uint32_t, std::uint64_t>> cells) {
  return testing::guest_of(cells, testing::kMiBInKiB);
}

TEST(Fit, TwoGuestCellsNeverFitOneHostCellHoweverLarge) {
  HostTopology host;
  host.cells.push_back(make_cell(0, 0, 64, 1 << 20));
  FitResult result = fit_guest(host, guest({{6, 3072}, {2, 1024}}));
  EXPECT_FALSE(result.placement.has_value());
  EXPECT_NE(result.summary.find("2 NUMA cells"), std::string::npos);
}

TEST(Fit, AsymmetricGuestSwapsOntoTheCellsThatHoldIt) {
  // libvirt's test host: cell 0 has 2 GiB, cell 1 has 4 GiB. Guest cell 0 wants 3 GiB.
  HostTopology host;
  host.cells.push_back(make_cell(0, 0, 8, 2048));
  host.cells.push_back(make_cell(1, 8, 8, 4096));
  FitResult result = fit_guest(host, guest({{6, 3072}, {2, 1024}}));
  ASSERT_TRUE(result.placement.has_value()) << result.summary;
  EXPECT_EQ(result.placement->cells[0].host_cell, 1u);
  EXPECT_EQ(result.placement->cells[1].host_cell, 0u);
  EXPECT_EQ(to_cpu_list(result.placement->cells[0].host_cpus), "8-15");
  // The rejection says which resource fell short and by how much.
  ASSERT_FALSE(result.rejections.empty());
  EXPECT_EQ(result.rejections[0].guest_cell, 0u);
  EXPECT_EQ(result.rejections[0].host_cell, 0u);
  EXPECT_NE(result.rejections[0].reason.find("3072 MiB"), std::string::npos);
}

TEST(Fit, CountsExistingUsageAgainstTheRatios) {
  HostTopology host;
  host.ratio = {1.0, 1.0};
  host.cells.push_back(make_cell(0, 0, 4, 4096));
  host.cells.push_back(make_cell(1, 4, 4, 4096));
  host.cells[0].usage.memory_kib = 3072 * 1024;  // 1 GiB left
  host.cells[1].usage.shared_cpus = 3;           // 1 CPU left
  EXPECT_FALSE(fit_guest(host, guest({{2, 2048}})).placement.has_value());
  auto result = fit_guest(host, guest({{1, 1024}}));
  ASSERT_TRUE(result.placement.has_value());
  // Nova sorts by free memory, then (more significant) by shared CPU load: cell 0, idle, comes first
  // and its last GiB is exactly enough.
  EXPECT_EQ(result.placement->cells[0].host_cell, 0u);
  // One MiB more does not fit cell 0's memory, so it lands on cell 1's last CPU.
  auto larger = fit_guest(host, guest({{1, 1025}}));
  ASSERT_TRUE(larger.placement.has_value());
  EXPECT_EQ(larger.placement->cells[0].host_cell, 1u);
}

GuestTopology pinned_guest(std::uint32_t vcpus, std::uint64_t memory_mib) {
  GuestTopology pinned = guest({{vcpus, memory_mib}});
  pinned.cpu_policy = CpuPolicy::Dedicated;
  pinned.cells[0].dedicated_cpus = pinned.cells[0].cpus;
  return pinned;
}

// The one host cell's refusal reason for `wanted`; empty (and a test failure) when it fits.
std::string sole_refusal(const HostTopology& host, const GuestTopology& wanted) {
  FitResult result = fit_guest(host, wanted);
  EXPECT_FALSE(result.placement.has_value());
  EXPECT_EQ(result.rejections.size(), 1u);
  return result.rejections.empty() ? std::string() : result.rejections[0].reason;
}

// Floating guests may overcommit a cell's memory (RAM ratio 1.5 here); a pinned cell may not, and
// the refusal says how far past the cell's memory its use already is rather than a negative free.
TEST(Fit, MemoryRefusalsNameOvercommitWithoutNegativeAmounts) {
  HostTopology host;
  host.ratio = {16.0, 1.5};
  host.cells.push_back(make_cell(0, 0, 8, 4096));

  host.cells[0].usage.memory_kib = 3072 * 1024;
  ASSERT_TRUE(fit_guest(host, guest({{1, 2048}})).placement.has_value());  // shared: 6144 MiB at the ratio
  const std::string short_by_some = sole_refusal(host, pinned_guest(1, 2048));
  EXPECT_NE(short_by_some.find("has 1024 MiB free (3072 MiB in use"), std::string::npos) << short_by_some;

  host.cells[0].usage.memory_kib = 5120 * 1024;  // 1024 MiB past the cell's memory
  const std::string overcommitted = sole_refusal(host, pinned_guest(1, 512));
  EXPECT_NE(overcommitted.find("has none free: 5120 MiB in use"), std::string::npos) << overcommitted;
  EXPECT_NE(overcommitted.find("1024 MiB past its memory"), std::string::npos) << overcommitted;
  EXPECT_EQ(overcommitted.find('-'), std::string::npos) << overcommitted;

  host.cells[0].usage.memory_kib = 7168 * 1024;  // 1024 MiB past memory x RAM ratio (6144 MiB)
  const std::string past_ratio = sole_refusal(host, guest({{1, 512}}));
  EXPECT_NE(past_ratio.find("has none left: 7168 MiB in use"), std::string::npos) << past_ratio;
  EXPECT_NE(past_ratio.find("1024 MiB past its memory x RAM ratio, RAM ratio 1.5"), std::string::npos) << past_ratio;
  EXPECT_EQ(past_ratio.find('-'), std::string::npos) << past_ratio;
}

// Invariant: a memory refusal states the cell's room as the cell's own figures give it, never a
// negative amount: "has N MiB free" (N = memory - in use) for a pinned cell, "has N MiB left"
// (N = memory x RAM ratio - in use), or "has none free/left: U MiB in use (...), P MiB past ..."
// where U is what is in use and P = U - that limit. Random cells, use (often past the memory, as
// floating guests may take it), ratios and guests; the figures are recomputed here from the inputs.
TEST(FitProperty, MemoryRefusalsStateTheRoomFromTheCellsFigures) {
  std::mt19937 rng(20261206);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const std::regex negative("-[0-9]");
  const std::regex room("has ([0-9]+) MiB (free|left) \\(([0-9]+) MiB in use");
  const std::regex none("has none (free|left): ([0-9]+) MiB in use \\([^)]*\\), ([0-9]+) MiB past");
  int with_room = 0, with_none = 0;
  for (int round = 0; round < 4000; ++round) {
    const std::int64_t memory_mib = 1024 * pick(1, 8);
    const double ram_ratio = 0.5 * pick(1, 4);
    const std::int64_t used_mib = pick(0, static_cast<int>(memory_mib * 5 / 2));
    HostTopology host;
    host.ratio = {16.0, ram_ratio};
    host.cells.push_back(make_cell(0, 0, 8, static_cast<std::uint64_t>(memory_mib)));
    host.cells[0].usage.memory_kib = static_cast<std::uint64_t>(used_mib) * 1024;
    GuestTopology wanted = pick(0, 1) ? pinned_guest(1, static_cast<std::uint64_t>(pick(1, 16) * 512))
                                      : guest({{1, static_cast<std::uint64_t>(pick(1, 16) * 512)}});
    const FitResult result = fit_guest(host, wanted);
    for (const CellRejection& rejection : result.rejections) {
      const std::string& why = rejection.reason;
      EXPECT_FALSE(std::regex_search(why, negative)) << why;
      const std::int64_t limit_at_ratio = static_cast<std::int64_t>(static_cast<double>(memory_mib) * ram_ratio);
      std::smatch m;
      if (std::regex_search(why, m, room)) {
        ++with_room;
        EXPECT_EQ(std::stoll(m[3]), used_mib) << why;
        EXPECT_EQ(std::stoll(m[1]), (m[2] == "free" ? memory_mib : limit_at_ratio) - used_mib) << why;
      } else if (std::regex_search(why, m, none)) {
        ++with_none;
        EXPECT_EQ(std::stoll(m[2]), used_mib) << why;
        EXPECT_EQ(std::stoll(m[3]), used_mib - (m[1] == "free" ? memory_mib : limit_at_ratio)) << why;
        EXPECT_GT(std::stoll(m[3]), 0) << why;
      }
    }
  }
  // Both forms drawn often, or the check says little.
  EXPECT_GT(with_room, 200);
  EXPECT_GT(with_none, 200);
}

TEST(Fit, PackingOrderTriesTheFullestCellFirst) {
  HostTopology host;
  host.cells.push_back(make_cell(0, 0, 4, 4096));
  host.cells.push_back(make_cell(1, 4, 4, 4096));
  host.cells[1].usage.memory_kib = 1024 * 1024;
  FitOptions pack;
  pack.pack_host_cells = true;
  EXPECT_EQ(fit_guest(host, guest({{1, 512}})).placement->cells[0].host_cell, 0u);
  EXPECT_EQ(fit_guest(host, guest({{1, 512}}), pack).placement->cells[0].host_cell, 1u);
}

// The ordered search must give exactly the first permutation Nova would accept.
TEST(Fit, MatchesTheFirstFittingPermutationOnRandomHosts) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 400; ++round) {
    HostTopology host;
    const std::uint32_t host_cells = 1 + rng() % 6;
    for (std::uint32_t i = 0; i < host_cells; ++i) {
      host.cells.push_back(make_cell(i, i * 8, 1 + rng() % 8, 1024 * (1 + rng() % 8)));
      host.cells.back().usage.memory_kib = 1024 * 256 * (rng() % 8);
    }
    std::vector<std::pair<std::uint32_t, std::uint64_t>> cells;
    const std::uint32_t guest_cells = 1 + rng() % host_cells;
    for (std::uint32_t i = 0; i < guest_cells; ++i) cells.emplace_back(1 + rng() % 6, 512 * (1 + rng() % 12));
    GuestTopology g = guest(cells);

    // Brute force over permutations of Nova's order.
    std::vector<std::size_t> order = nova_host_cell_order(host, g, {});
    std::vector<std::size_t> positions(host_cells);
    std::iota(positions.begin(), positions.end(), 0);
    std::optional<std::vector<std::uint32_t>> expected;
    std::vector<std::vector<std::size_t>> seen;
    do {
      std::vector<std::size_t> prefix(positions.begin(), positions.begin() + guest_cells);
      if (std::find(seen.begin(), seen.end(), prefix) != seen.end()) continue;
      seen.push_back(prefix);
      bool ok = true;
      for (std::uint32_t gi = 0; gi < guest_cells && ok; ++gi) {
        ok = !cell_misfit(host, host.cells[order[prefix[gi]]], g, g.cells[gi]).has_value();
      }
      if (ok) {
        expected = std::vector<std::uint32_t>{};
        for (auto p : prefix) expected->push_back(host.cells[order[p]].id);
        break;
      }
    } while (std::next_permutation(positions.begin(), positions.end()));

    FitResult result = fit_guest(host, g);
    ASSERT_EQ(result.placement.has_value(), expected.has_value()) << "round " << round;
    if (expected) {
      std::vector<std::uint32_t> got;
      for (const auto& c : result.placement->cells) got.push_back(c.host_cell);
      EXPECT_EQ(got, *expected) << "round " << round;
    }
  }
}

}  // namespace
}  // namespace numaplace

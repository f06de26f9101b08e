// SPDX-License-Identifier: LGPL-2.1-or-later
// The guest CPU topology: Nova's constraint rules on hw:cpu_* / hw_cpu_*, Nova's order among
// the topologies, and numaplace's stricter rules (preferred values met, sockets within cells).
#include "placement/request/cpu_topology.h"

#include <gtest/gtest.h>

#include "support/topology_builders.h"

#include <random>
#include <set>
#include <tuple>

#include "placement/request/guest_topology.h"
#include "placement/request/guest_tuning.h"

namespace numaplace {
namespace {

GuestRequest request(std::uint32_t vcpus, SpecMap flavor, SpecMap image = {}) {
  return testing::request_of(vcpus, std::move(flavor), std::move(image));
}

// The topology the whole request gets (NUMA cells from derive_guest_topology), or the error's name.
std::string chosen(const GuestRequest& r) {
  auto topology = derive_guest_topology(r);
  if (!topology) return topology.error().name;
  auto tuning = derive_guest_tuning(r, *topology);
  if (!tuning) return tuning.error().name;
  if (!tuning->cpu_topology) return "none";
  const CpuTopology& t = *tuning->cpu_topology;
  return std::to_string(t.sockets) + "s" + std::to_string(t.cores) + "c" + std::to_string(t.threads) + "t";
}

TEST(CpuTopology, NoKeyLeavesTheDomainsTopologyAlone) { EXPECT_EQ(chosen(request(8, {})), "none"); }

TEST(CpuTopology, WithoutPreferencesEveryVcpuIsASocketAsInNova) {
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_max_sockets", "8"}})), "8s1c1t");
}

TEST(CpuTopology, APreferredValueIsMetAndTheRestFollowsNovasOrder) {
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_sockets", "2"}})), "2s4c1t");
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_threads", "2"}})), "4s1c2t");
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_sockets", "1"}, {"hw:cpu_cores", "4"}, {"hw:cpu_threads", "2"}})), "1s4c2t");
}

TEST(CpuTopology, LimitsAreRespected) {
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_max_sockets", "2"}})), "2s4c1t");
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_max_sockets", "1"}, {"hw:cpu_max_cores", "2"}})), "1s2c4t");
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_max_sockets", "3"}, {"hw:cpu_max_cores", "1"}, {"hw:cpu_max_threads", "2"}})),
            "ImageVCPULimitsRangeImpossible");
}

TEST(CpuTopology, TheImageMayNarrowTheFlavorsLimitsNotWidenThem) {
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_max_sockets", "4"}}, {{"hw_cpu_max_sockets", "2"}})), "2s4c1t");
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_max_sockets", "2"}}, {{"hw_cpu_max_sockets", "4"}})),
            "ImageVCPULimitsRangeExceeded");
}

TEST(CpuTopology, PreferredValuesAboveTheirLimitAreRefused) {
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_sockets", "4"}, {"hw:cpu_max_sockets", "2"}})),
            "ImageVCPUTopologyRangeExceeded");
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_max_cores", "2"}}, {{"hw_cpu_cores", "4"}})), "ImageVCPUTopologyRangeExceeded");
}

TEST(CpuTopology, AnImagePreferenceReplacesEveryFlavorPreference) {
  // The flavor's sockets=2 goes with the image's threads=2: as in Nova, the image's set wins whole.
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_sockets", "2"}}, {{"hw_cpu_threads", "2"}})), "4s1c2t");
}

TEST(CpuTopology, BadValuesAreValueErrors) {
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_sockets", "two"}})), "ValueError");
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_max_cores", "-1"}})), "ValueError");
  EXPECT_EQ(chosen(request(8, {}, {{"hw_cpu_threads", "x"}})), "ValueError");
}

// Nova would take the closest topology; numaplace refuses what it cannot apply.
TEST(CpuTopology, APreferenceNoTopologyMeetsIsRefused) {
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_sockets", "3"}})), "CpuTopologyUnsatisfiable");
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_sockets", "2"}, {"hw:cpu_cores", "3"}})), "CpuTopologyUnsatisfiable");
  EXPECT_EQ(chosen(request(8, {{"hw:cpu_sockets", "2"}, {"hw:cpu_cores", "2"}, {"hw:cpu_threads", "1"}})),
            "CpuTopologyUnsatisfiable");
}

TEST(CpuTopology, SocketsStayWithinGuestCells) {
  // Two cells of 4: two sockets fit, one socket would span both.
  EXPECT_EQ(chosen(request(8, {{"hw:numa_nodes", "2"}, {"hw:cpu_max_sockets", "2"}})), "2s4c1t");
  EXPECT_EQ(chosen(request(8, {{"hw:numa_nodes", "2"}, {"hw:cpu_sockets", "1"}})), "CpuTopologyUnsatisfiable");
  // Cells of 6 + 2: sockets of 2 vCPUs line up with both, sockets of 4 do not.
  const SpecMap uneven{{"hw:numa_nodes", "2"},    {"hw:numa_cpus.0", "0-5"}, {"hw:numa_cpus.1", "6,7"},
                       {"hw:numa_mem.0", "3072"}, {"hw:numa_mem.1", "1024"}};
  SpecMap two_per_socket = uneven;
  two_per_socket["hw:cpu_cores"] = "2";
  EXPECT_EQ(chosen(request(8, two_per_socket)), "4s2c1t");
  SpecMap four_per_socket = uneven;
  four_per_socket["hw:cpu_sockets"] = "2";
  EXPECT_EQ(chosen(request(8, four_per_socket)), "CpuTopologyUnsatisfiable");
  // Interleaved cells (0,2,4,6 / 1,3,5,7) only agree with one vCPU per socket.
  const SpecMap interleaved{{"hw:numa_nodes", "2"},    {"hw:numa_cpus.0", "0,2,4,6"}, {"hw:numa_cpus.1", "1,3,5,7"},
                            {"hw:numa_mem.0", "2048"}, {"hw:numa_mem.1", "2048"},     {"hw:cpu_max_threads", "2"}};
  EXPECT_EQ(chosen(request(8, interleaved)), "8s1c1t");
}

// Property: over random vCPU counts, limits, preferences and cells, a chosen topology makes the
// vCPU count, keeps every limit and preference, puts each socket in one cell and is the first in
// Nova's order among all that do; a refusal means none does. The oracle enumerates every
// (sockets, cores, threads) triple by brute force and checks cells by the sockets each cell touches.
TEST(CpuTopology, PropertyChosenTopologiesAreValidAndRefusalsHaveNoValidTopology) {
  std::mt19937 rng(20261201);
  auto pick = [&](std::uint32_t low, std::uint32_t high) { return std::uniform_int_distribution<std::uint32_t>(low, high)(rng); };
  for (int round = 0; round < 3000; ++round) {
    const std::uint32_t vcpus = pick(1, 48);
    CpuTopologyRequest wish;
    auto maybe = [&](std::uint32_t high) -> std::uint64_t { return pick(0, 2) == 0 ? pick(1, high) : 0; };
    wish.max_sockets = maybe(8);
    wish.max_cores = maybe(8);
    wish.max_threads = maybe(4);
    wish.sockets = pick(0, 5) == 0 ? pick(1, 6) : 0;
    wish.cores = pick(0, 5) == 0 ? pick(1, 6) : 0;
    wish.threads = pick(0, 5) == 0 ? pick(1, 3) : 0;
    // Cells: none, or a random split of the vCPUs (contiguous runs, or vCPUs dealt at random).
    std::vector<CpuSet> cells;
    const std::uint32_t cell_count = pick(0, 3);
    if (cell_count > 0) {
      cells.resize(cell_count);
      const bool contiguous = pick(0, 1) == 0;
      std::uint32_t cell = 0;
      for (std::uint32_t v = 0; v < vcpus; ++v) {
        if (contiguous) {
          if (cell + 1 < cell_count && pick(0, 3) == 0) ++cell;
        } else {
          cell = pick(0, cell_count - 1);
        }
        cells[cell].insert(v);
      }
    }
    auto valid = [&](std::uint64_t s, std::uint64_t c, std::uint64_t t) {
      if (s * c * t != vcpus) return false;
      if ((wish.max_sockets && s > wish.max_sockets) || (wish.max_cores && c > wish.max_cores) ||
          (wish.max_threads && t > wish.max_threads)) {
        return false;
      }
      if ((wish.sockets && s != wish.sockets) || (wish.cores && c != wish.cores) || (wish.threads && t != wish.threads)) {
        return false;
      }
      std::set<std::uint64_t> taken;
      for (const auto& cell : cells) {
        std::set<std::uint64_t> touched;
        for (std::uint32_t v : cell) touched.insert(v / (c * t));
        for (std::uint64_t socket : touched) {
          if (!taken.insert(socket).second) return false;
        }
      }
      return true;
    };
    std::optional<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>> best;  // (s*c, s, t), highest
    for (std::uint64_t s = 1; s <= vcpus; ++s) {
      for (std::uint64_t c = 1; c <= vcpus; ++c) {
        for (std::uint64_t t = 1; t <= vcpus; ++t) {
          if (valid(s, c, t) && (!best || std::make_tuple(s * c, s, t) > *best)) best = std::make_tuple(s * c, s, t);
        }
      }
    }
    auto result = best_cpu_topology(vcpus, wish, cells);
    const std::string context = "round " + std::to_string(round) + ", " + std::to_string(vcpus) + " vCPUs";
    if (!best) {
      ASSERT_FALSE(result.ok()) << context;
      EXPECT_TRUE(result.error().name == "CpuTopologyUnsatisfiable" ||
                  result.error().name == "ImageVCPULimitsRangeImpossible")
          << context << ": " << result.error().name;
      continue;
    }
    ASSERT_TRUE(result.ok()) << context << ": " << result.error().message;
    const CpuTopology& t = *result;
    EXPECT_TRUE(valid(t.sockets, t.cores, t.threads)) << context;
    EXPECT_EQ(std::make_tuple(std::uint64_t{t.sockets} * t.cores, std::uint64_t{t.sockets}, std::uint64_t{t.threads}),
              *best)
        << context;
  }
}

}  // namespace
}  // namespace numaplace

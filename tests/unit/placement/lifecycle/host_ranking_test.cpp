// SPDX-License-Identifier: LGPL-2.1-or-later
// Ranking hosts (placement/lifecycle/host_ranking.h): the fit test decides who is in, the
// strategy orders them, refused hosts say why, and the order is stable.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "placement/lifecycle/host_ranking.h"

namespace numaplace {
namespace {

HostTopology make_host(std::uint32_t cells, std::uint32_t cpus_per_cell, std::uint64_t mib_per_cell,
                       std::uint32_t pinned_per_cell = 0) {
  HostTopology host;
  for (std::uint32_t c = 0; c < cells; ++c) {
    HostCell cell;
    cell.id = c;
    for (std::uint32_t i = 0; i < cpus_per_cell; ++i) {
      cell.cpus.insert(c * cpus_per_cell + i);
      CpuSet one;
      one.insert(c * cpus_per_cell + i);
      cell.siblings.push_back(one);
      if (i < pinned_per_cell) cell.usage.pinned_cpus.insert(c * cpus_per_cell + i);
    }
    cell.shared_cpus = cell.cpus;
    cell.dedicated_cpus = cell.cpus;
    cell.memory_kib = mib_per_cell * 1024;
    host.cells.push_back(std::move(cell));
  }
  return host;
}

GuestRequest guest(std::uint32_t vcpus, std::uint64_t mib, SpecMap specs) {
  GuestRequest request;
  request.vcpus = vcpus;
  request.memory_kib = mib * 1024;
  request.flavor_specs = std::move(specs);
  return request;
}

TEST(HostRanking, SpreadPrefersTheEmptiestAndPackTheFullest) {
  std::vector<HostTopology> hosts{make_host(2, 8, 8192, 6), make_host(2, 8, 8192, 0), make_host(2, 8, 8192, 3)};
  const auto request = guest(4, 2048, {{"hw:numa_nodes", "2"}, {"hw:cpu_policy", "dedicated"}});
  RankOptions options;
  auto spread = rank_hosts(hosts, request, options);
  ASSERT_TRUE(spread) << spread.error().message;
  ASSERT_EQ(spread->size(), 3u);
  EXPECT_EQ((*spread)[0].index, 1u);
  EXPECT_EQ((*spread)[1].index, 2u);
  EXPECT_EQ((*spread)[2].index, 0u);
  EXPECT_GT((*spread)[0].score, (*spread)[2].score);
  ASSERT_TRUE((*spread)[0].placement);
  EXPECT_EQ((*spread)[0].placement->cells.size(), 2u);

  options.scoring.strategy = scoring::ScoringStrategy::MostAllocated;
  auto pack = rank_hosts(hosts, request, options);
  ASSERT_TRUE(pack);
  EXPECT_EQ((*pack)[0].index, 0u);
}

TEST(HostRanking, RefusedHostsComeLastWithTheirReason) {
  std::vector<HostTopology> hosts{make_host(1, 16, 65536), make_host(2, 4, 4096, 4), make_host(2, 8, 8192)};
  const auto request = guest(4, 2048, {{"hw:numa_nodes", "2"}, {"hw:cpu_policy", "dedicated"}});
  RankOptions options;
  options.explain = true;
  auto ranked = rank_hosts(hosts, request, options);
  ASSERT_TRUE(ranked);
  ASSERT_EQ(ranked->size(), 3u);
  EXPECT_TRUE((*ranked)[0].fits);
  EXPECT_EQ((*ranked)[0].index, 2u);
  EXPECT_FALSE((*ranked)[1].fits);
  EXPECT_EQ((*ranked)[1].index, 0u);
  EXPECT_NE((*ranked)[1].reason.find("NUMA cells"), std::string::npos) << (*ranked)[1].reason;
  EXPECT_EQ((*ranked)[2].index, 1u);
  EXPECT_NE((*ranked)[2].reason.find("no assignment"), std::string::npos) << (*ranked)[2].reason;
  // The pairs: 2 dedicated vCPUs a guest cell, on host cells whose 4 CPUs are all pinned already, so
  // every (guest cell, host cell) pair is named, each once.
  std::set<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (const auto& r : (*ranked)[2].rejections) {
    pairs.insert({r.guest_cell, r.host_cell});
    EXPECT_FALSE(r.reason.empty());
  }
  EXPECT_EQ(pairs.size(), 4u);
  EXPECT_EQ((*ranked)[2].rejections.size(), 4u);
  EXPECT_TRUE((*ranked)[1].rejections.empty());  // refused before any pair: too few cells
  // Without explain, the summary alone.
  options.explain = false;
  auto quiet = rank_hosts(hosts, request, options);
  ASSERT_TRUE(quiet);
  EXPECT_TRUE((*quiet)[2].rejections.empty());
  EXPECT_EQ((*quiet)[2].reason, (*ranked)[2].reason);
}

TEST(HostRanking, GuestWithoutTopologyNeedsRoomInTheTotals) {
  std::vector<HostTopology> hosts{make_host(1, 2, 1024), make_host(2, 4, 4096)};
  hosts[0].ratio.ram = 1.0;
  auto ranked = rank_hosts(hosts, guest(2, 2048, {}), RankOptions{});
  ASSERT_TRUE(ranked);
  EXPECT_TRUE((*ranked)[0].fits);
  EXPECT_EQ((*ranked)[0].index, 1u);
  EXPECT_FALSE((*ranked)[0].placement);
  EXPECT_FALSE((*ranked)[1].fits);
  EXPECT_NE((*ranked)[1].reason.find("MiB"), std::string::npos);
}

// A guest without a NUMA topology backed by huge pages fits a host whose free pages of the size,
// over all its cells, hold its memory (as place confines it over cells), whatever one cell holds.
TEST(HostRanking, AGuestWithoutTopologyOnHugePagesNeedsThemFreeOverTheHost) {
  std::vector<HostTopology> hosts{make_host(2, 4, 8192), make_host(2, 4, 8192), make_host(2, 4, 8192)};
  const std::uint64_t gib = 1048576;
  // As a host reports them: the small pages are what the 1 GiB pages leave of each 4 GiB cell.
  for (auto& cell : hosts[0].cells) cell.pages = {{4, 1 * gib / 4, 0, 0}, {gib, 3, 0, 0}};  // 6 GiB over two cells
  for (auto& cell : hosts[1].cells) cell.pages = {{4, 2 * gib / 4, 0, 0}, {gib, 2, 0, 0}};  // 4 GiB
  RankOptions options;
  options.floating_page_kib = gib;
  auto ranked = rank_hosts(hosts, guest(2, 5 * 1024, {}), options);
  ASSERT_TRUE(ranked);
  ASSERT_EQ(ranked->size(), 3u);
  EXPECT_TRUE((*ranked)[0].fits);
  EXPECT_EQ((*ranked)[0].index, 0u);
  EXPECT_FALSE((*ranked)[1].fits);
  EXPECT_NE((*ranked)[1].reason.find("memory: 5120 MiB in 1048576 KiB pages cannot be bound to any set of host cells: "
                                      "cell 0 has 2048 MiB free, cell 1 has 2048 MiB free"),
            std::string::npos) << (*ranked)[1].reason;
  EXPECT_FALSE((*ranked)[2].fits);  // no pages of the size at all
  // On small pages, the huge page pools are carved out of the cells' memory: 1 + 1 GiB and 2 + 2 GiB
  // of small pages are left on the first two hosts, too little for 5 GiB; the third has all 8 GiB.
  options.floating_page_kib = 0;
  auto small = rank_hosts(hosts, guest(2, 5 * 1024, {}), options);
  ASSERT_TRUE(small);
  ASSERT_EQ(small->size(), 3u);
  EXPECT_TRUE((*small)[0].fits);
  EXPECT_EQ((*small)[0].index, 2u);
  EXPECT_FALSE((*small)[1].fits);
  EXPECT_FALSE((*small)[2].fits);
  EXPECT_NE((*small)[1].reason.find("cell 0 has 1024 MiB free, cell 1 has 1024 MiB free"), std::string::npos)
      << (*small)[1].reason;
}

// In Nova's model (Accounting::Nova, host JSON's default) a guest without NUMA keys is held to the RAM
// ratio, as Nova's RamFilter holds it: 15 of 16 GiB used, ratio 1.5, 4 GiB more fits (19 <= 24);
// with no limits at all anything does. A real host (Exclusive) needs the memory physically free.
TEST(HostRanking, AGuestWithoutTopologyOnANovaHostIsHeldToTheRamRatio) {
  HostTopology host = make_host(1, 4, 16384);
  host.cells[0].usage.memory_kib = 15 * 1048576;
  host.ratio.ram = 1.5;
  host.accounting = Accounting::Nova;
  auto nova = rank_hosts(std::span<const HostTopology>(&host, 1), guest(2, 4096, {}), RankOptions{});
  ASSERT_TRUE(nova);
  EXPECT_TRUE(nova->front().fits) << nova->front().reason;
  auto too_much = rank_hosts(std::span<const HostTopology>(&host, 1), guest(2, 10240, {}), RankOptions{});
  ASSERT_TRUE(too_much);
  EXPECT_FALSE(too_much->front().fits);  // 25 > 24 GiB
  host.ratio.enforced = false;
  auto unlimited = rank_hosts(std::span<const HostTopology>(&host, 1), guest(2, 10240, {}), RankOptions{});
  ASSERT_TRUE(unlimited);
  EXPECT_TRUE(unlimited->front().fits) << unlimited->front().reason;
  host.ratio.enforced = true;
  host.accounting = Accounting::Exclusive;
  auto real = rank_hosts(std::span<const HostTopology>(&host, 1), guest(2, 4096, {}), RankOptions{});
  ASSERT_TRUE(real);
  EXPECT_FALSE(real->front().fits);  // 1 GiB physically free
}

TEST(HostRanking, ABadRequestIsAnError) {
  std::vector<HostTopology> hosts{make_host(2, 4, 4096)};
  auto ranked = rank_hosts(hosts, guest(3, 2048, {{"hw:numa_nodes", "2"}}), RankOptions{});
  ASSERT_FALSE(ranked);
  EXPECT_EQ(ranked.error().name, "ImageNUMATopologyAsymmetric");
}

// What place would refuse whatever the host (a CPU topology it cannot write) rank refuses too.
TEST(HostRanking, ARequestNoDomainCouldCarryIsAnError) {
  std::vector<HostTopology> hosts{make_host(2, 4, 4096)};
  auto ranked = rank_hosts(hosts, guest(4, 2048, {{"hw:numa_nodes", "2"}, {"hw:cpu_sockets", "1"}}), RankOptions{});
  ASSERT_FALSE(ranked);
  EXPECT_EQ(ranked.error().name, "CpuTopologyUnsatisfiable");
  auto floating = rank_hosts(hosts, guest(4, 2048, {{"hw:cpu_sockets", "3"}}), RankOptions{});
  ASSERT_FALSE(floating);
  EXPECT_EQ(floating.error().name, "CpuTopologyUnsatisfiable");
}

TEST(HostRanking, EqualScoresKeepInputOrder) {
  std::vector<HostTopology> hosts(5, make_host(2, 8, 8192));
  auto ranked = rank_hosts(hosts, guest(2, 1024, {{"hw:numa_nodes", "1"}}), RankOptions{});
  ASSERT_TRUE(ranked);
  for (std::size_t i = 0; i < hosts.size(); ++i) EXPECT_EQ((*ranked)[i].index, i);
}

TEST(HostRanking, HostTotals) {
  HostTopology host = make_host(2, 4, 1024, 2);
  host.cells[1].usage.shared_cpus = 8;  // with the default ratio 16: half a CPU
  host.cells[1].usage.memory_kib = 512 * 1024;
  auto node = host_resources(host);
  EXPECT_EQ(node.allocatable["cpu"], 8000);
  EXPECT_EQ(node.requested["cpu"], 4500);
  EXPECT_EQ(node.allocatable["memory"], 2048LL * 1024 * 1024);
  EXPECT_EQ(node.requested["memory"], 512LL * 1024 * 1024);
}

}  // namespace
}  // namespace numaplace

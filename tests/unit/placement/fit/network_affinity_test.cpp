// SPDX-License-Identifier: LGPL-2.1-or-later
// Network NUMA affinity in the fit (network_demands.h): which requirements a request puts on a
// host, the ordered search trying other host cells as Nova's permutation walk does, the scored
// strategies keeping to assignments that meet it, the NoFit sentence and the explanation; then a
// property test on random hosts with random affinities against a brute-force walk over every
// assignment and a checker of Nova's rule, both written here apart from the engine.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "placement/fit/fit.h"
#include "placement/fit/network_demands.h"
#include "support/topology_builders.h"

namespace numaplace {
namespace {

HostTopology four_cells() {
  HostTopology host;
  for (std::uint32_t i = 0; i < 4; ++i) {
    host.cells.push_back(testing::flat_cell(i, CpuSet::range(i * 4, i * 4 + 3), 4096 * testing::kMiBInKiB));
    host.cells.back().distances = {10, 20, 20, 20};
    std::rotate(host.cells.back().distances.rbegin(), host.cells.back().distances.rbegin() + i,
                host.cells.back().distances.rend());
  }
  return host;
}

GuestTopology one_cell(std::vector<std::string> physnets, bool tunneled) {
  GuestTopology guest = testing::guest_of({{2, 1024}}, testing::kMiBInKiB);
  guest.networks.physnets = std::move(physnets);
  guest.networks.tunneled = tunneled;
  return guest;
}

std::vector<std::uint32_t> host_cells_of(const FitResult& r) {
  std::vector<std::uint32_t> out;
  if (r.placement) {
    for (const auto& c : r.placement->cells) out.push_back(c.host_cell);
  }
  return out;
}

TEST(NetworkDemands, OnlyWhatSomeHostCellProvidesIsRequired) {
  HostTopology host = four_cells();
  host.cells[2].network.physnets = {"physnet1"};
  host.cells[3].network.tunneled = true;
  NetworkAffinity asked;
  asked.physnets = {"physnet1", "physnet9", "physnet1"};  // physnet9: no cell names it
  asked.tunneled = true;
  const auto demands = network_demands(host, asked);
  ASSERT_EQ(demands.size(), 2u);
  EXPECT_EQ(demands[0].what, "physnet 'physnet1'");
  EXPECT_EQ(demands[0].per_cell, (std::vector<std::uint32_t>{0, 0, 1, 0}));
  EXPECT_EQ(demands[1].what, "tunneled networks");
  EXPECT_EQ(demands[1].per_cell, (std::vector<std::uint32_t>{0, 0, 0, 1}));
  EXPECT_FALSE(network_demands_met(demands, {true, true, true, false}));
  EXPECT_TRUE(network_demands_met(demands, {false, false, true, true}));
  // No cell tunneled: asking for tunneled networks requires nothing; nothing asked: nothing.
  host.cells[3].network.tunneled = false;
  EXPECT_EQ(network_demands(host, NetworkAffinity{{}, true}).size(), 0u);
  EXPECT_TRUE(network_demands(host, NetworkAffinity{}).empty());
}

TEST(NetworkFit, NovaTriesOtherHostCellsUntilOneIsCloseToThePhysnet) {
  HostTopology host = four_cells();
  host.cells[2].network.physnets = {"physnet1"};
  // Without affinity Nova's first host cell (all equal: host order) is cell 0.
  EXPECT_EQ(host_cells_of(fit_guest(host, one_cell({}, false))), std::vector<std::uint32_t>{0});
  EXPECT_EQ(host_cells_of(fit_guest(host, one_cell({"physnet1"}, false))), std::vector<std::uint32_t>{2});
  // A physnet no host cell names constrains nothing.
  EXPECT_EQ(host_cells_of(fit_guest(host, one_cell({"physnet7"}, false))), std::vector<std::uint32_t>{0});
  // Tunneled: the one tunneled cell.
  host.cells[1].network.tunneled = true;
  EXPECT_EQ(host_cells_of(fit_guest(host, one_cell({}, true))), std::vector<std::uint32_t>{1});
  // Both: physnet1 on cell 2 and tunneled on cell 1 cannot both be met by one guest cell.
  FitResult both = fit_guest(host, one_cell({"physnet1"}, true));
  EXPECT_FALSE(both.placement.has_value());
  EXPECT_NE(both.summary.find("network affinity"), std::string::npos) << both.summary;
  // Two guest cells can: cells 1 and 2, in Nova's first such permutation (1 then 2).
  GuestTopology two = testing::guest_of({{2, 1024}, {2, 1024}}, testing::kMiBInKiB);
  two.networks = {{"physnet1"}, true};
  EXPECT_EQ(host_cells_of(fit_guest(host, two)), (std::vector<std::uint32_t>{1, 2}));
}

TEST(NetworkFit, AFullCellCloseToThePhysnetIsANamedNoFit) {
  HostTopology host = four_cells();
  host.cells[3].network.physnets = {"physnet1"};
  host.cells[3].usage.memory_kib = 4096 * testing::kMiBInKiB;
  host.ratio.ram = 1.0;  // no overcommit: cell 3 is full
  for (Strategy strategy : {Strategy::Nova, Strategy::Spread, Strategy::Pack, Strategy::Adaptive}) {
    FitOptions options;
    options.strategy = strategy;
    options.explain = true;
    FitResult r = fit_guest(host, one_cell({"physnet1"}, false), options);
    EXPECT_FALSE(r.placement.has_value()) << to_string(strategy);
    EXPECT_NE(r.summary.find("physnet 'physnet1'"), std::string::npos) << r.summary;
    EXPECT_NE(r.summary.find("host cell(s) 3"), std::string::npos) << r.summary;
    ASSERT_TRUE(r.explanation.has_value());
    EXPECT_NE(r.explanation->verdict.find("network affinity"), std::string::npos) << r.explanation->verdict;
  }
}

TEST(NetworkFit, ScoredStrategiesTakeTheBestAssignmentThatMeetsIt) {
  HostTopology host = four_cells();
  host.cells[1].network.physnets = {"physnet1"};
  host.cells[1].usage.memory_kib = 2048 * testing::kMiBInKiB;  // the fullest cell: spread avoids it
  FitOptions spread;
  spread.strategy = Strategy::Spread;
  spread.explain = true;
  EXPECT_NE(host_cells_of(fit_guest(host, one_cell({}, false), spread)), std::vector<std::uint32_t>{1});
  FitResult r = fit_guest(host, one_cell({"physnet1"}, false), spread);
  EXPECT_EQ(host_cells_of(r), std::vector<std::uint32_t>{1});
  ASSERT_TRUE(r.explanation.has_value());
  EXPECT_NE(r.explanation->verdict.find("physnet 'physnet1': host cell 1"), std::string::npos)
      << r.explanation->verdict;
}

TEST(NetworkFit, AMemoryOnlyCellIsNotMovedOffTheCellCloseToTheNetwork) {
  HostTopology host = four_cells();
  host.cells[3].network.physnets = {"physnet1"};
  GuestTopology guest = testing::guest_of({{2, 1024}, {0, 512}}, testing::kMiBInKiB);
  guest.cells[0].cpus = CpuSet::range(0, 1);
  guest.networks.physnets = {"physnet1"};
  // Cell 3 is far from the others: without the network the memory cell would leave it.
  for (std::uint32_t i = 0; i < 4; ++i) {
    host.cells[i].distances.clear();
    for (std::uint32_t j = 0; j < 4; ++j) host.cells[i].distances.push_back(i == j ? 10 : (i == 3 || j == 3 ? 40 : 20));
  }
  for (Strategy strategy : {Strategy::Spread, Strategy::Pack}) {
    FitOptions options;
    options.strategy = strategy;
    FitResult r = fit_guest(host, guest, options);
    const auto cells = host_cells_of(r);
    ASSERT_EQ(cells.size(), 2u) << r.summary;
    EXPECT_TRUE(cells[0] == 3 || cells[1] == 3) << cells[0] << "," << cells[1];
  }
}

// ---- property test --------------------------------------------------------------------------

// Nova's rule, as hardware._numa_cells_support_network_metadata words it: the physnets asked
// less those the chosen cells name must be named by no host cell; when tunneled networks are
// asked and no chosen cell is tunneled, no host cell may be.
bool nova_network_rule(const HostTopology& host, const std::set<std::uint32_t>& chosen_ids,
                       const NetworkAffinity& asked) {
  std::set<std::string> left(asked.physnets.begin(), asked.physnets.end());
  for (const HostCell& cell : host.cells) {
    if (!chosen_ids.count(cell.id)) continue;
    for (const std::string& p : cell.network.physnets) left.erase(p);
  }
  for (const HostCell& cell : host.cells) {
    for (const std::string& p : cell.network.physnets) {
      if (left.count(p)) return false;
    }
  }
  if (asked.tunneled) {
    bool chosen_tunneled = false;
    bool any_tunneled = false;
    for (const HostCell& cell : host.cells) {
      any_tunneled = any_tunneled || cell.network.tunneled;
      chosen_tunneled = chosen_tunneled || (cell.network.tunneled && chosen_ids.count(cell.id));
    }
    if (any_tunneled && !chosen_tunneled) return false;
  }
  return true;
}

// Every injective assignment of guest cells to host positions in lexicographic order (Nova's
// itertools.permutations over its ordered cells); the first whose pairs fit and whose set meets
// the rule, as host cell ids by guest cell.
std::optional<std::vector<std::uint32_t>> brute_force_first(const HostTopology& host, const GuestTopology& guest,
                                                            const std::vector<std::size_t>& order) {
  const std::size_t k = guest.cells.size();
  const std::size_t n = order.size();
  std::vector<std::vector<bool>> fits(k, std::vector<bool>(n));
  for (std::size_t g = 0; g < k; ++g) {
    for (std::size_t p = 0; p < n; ++p) {
      fits[g][p] = !cell_misfit(host, host.cells[order[p]], guest, guest.cells[g]).has_value();
    }
  }
  std::vector<std::size_t> positions(k);
  std::vector<bool> used(n, false);
  std::optional<std::vector<std::uint32_t>> found;
  auto walk = [&](auto&& self, std::size_t g) -> void {
    if (found) return;
    if (g == k) {
      std::set<std::uint32_t> ids;
      std::vector<std::uint32_t> cells;
      for (std::size_t i = 0; i < k; ++i) {
        ids.insert(host.cells[order[positions[i]]].id);
        cells.push_back(host.cells[order[positions[i]]].id);
      }
      if (nova_network_rule(host, ids, guest.networks)) found = cells;
      return;
    }
    for (std::size_t p = 0; p < n && !found; ++p) {
      if (used[p] || !fits[g][p]) continue;
      used[p] = true;
      positions[g] = p;
      self(self, g + 1);
      used[p] = false;
    }
  };
  walk(walk, 0);
  return found;
}

HostTopology random_host(std::mt19937& rng) {
  std::uniform_int_distribution<int> cells_of(1, 6), cpus_of(1, 4), mem_of(1, 4), coin(0, 99);
  const std::vector<std::string> physnets = {"p0", "p1", "p2"};
  HostTopology host;
  const int n = cells_of(rng);
  for (int i = 0; i < n; ++i) {
    const auto id = static_cast<std::uint32_t>(i);
    const int cpus = cpus_of(rng);
    host.cells.push_back(testing::flat_cell(id, CpuSet::range(id * 8, id * 8 + static_cast<std::uint32_t>(cpus) - 1),
                                            static_cast<std::uint64_t>(mem_of(rng)) * 1024 * testing::kMiBInKiB));
    HostCell& cell = host.cells.back();
    if (coin(rng) < 30) cell.usage.memory_kib = cell.memory_kib / 2;
    if (coin(rng) < 20) cell.usage.pinned_cpus = CpuSet{id * 8};
    for (const auto& p : physnets) {
      if (coin(rng) < 25) cell.network.physnets.push_back(p);
    }
    cell.network.tunneled = coin(rng) < 25;
    for (int j = 0; j < n; ++j) cell.distances.push_back(i == j ? 10 : 20 + static_cast<std::uint32_t>(coin(rng) % 3));
  }
  return host;
}

GuestTopology random_guest(std::mt19937& rng, std::size_t host_cells) {
  std::uniform_int_distribution<int> coin(0, 99);
  const std::size_t k = 1 + static_cast<std::size_t>(coin(rng)) % std::min<std::size_t>(host_cells, 3);
  std::vector<std::pair<std::uint32_t, std::uint64_t>> cells;
  for (std::size_t i = 0; i < k; ++i) {
    const std::uint32_t vcpus = i > 0 && coin(rng) < 15 ? 0 : 1 + static_cast<std::uint32_t>(coin(rng) % 3);
    cells.emplace_back(vcpus, 256 * (1 + static_cast<std::uint64_t>(coin(rng) % 8)));
  }
  GuestTopology guest = testing::guest_of(cells, testing::kMiBInKiB);
  if (coin(rng) < 40) {
    guest.cpu_policy = CpuPolicy::Dedicated;
    for (auto& cell : guest.cells) cell.dedicated_cpus = cell.cpus;
  }
  for (const char* p : {"p0", "p1", "p2", "p9"}) {
    if (coin(rng) < 35) guest.networks.physnets.emplace_back(p);
  }
  guest.networks.tunneled = coin(rng) < 40;
  return guest;
}

TEST(NetworkFitProperty, MatchesABruteForceWalkAndEveryAnswerMeetsNovasRule) {
  std::mt19937 rng(20261201);
  int fitted = 0, refused = 0, moved = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const HostTopology host = random_host(rng);
    const GuestTopology guest = random_guest(rng, host.cells.size());
    const std::vector<std::size_t> order = nova_host_cell_order(host, guest, FitOptions{});
    const auto expected = brute_force_first(host, guest, order);
    GuestTopology without = guest;
    without.networks = {};
    const auto plain = brute_force_first(host, without, order);
    moved += expected != plain;
    for (Strategy strategy : {Strategy::Nova, Strategy::Spread, Strategy::Pack, Strategy::Adaptive}) {
      FitOptions options;
      options.strategy = strategy;
      const FitResult r = fit_guest(host, guest, options);
      ASSERT_EQ(r.placement.has_value(), expected.has_value())
          << "trial " << trial << " " << to_string(strategy) << ": " << r.summary;
      if (!r.placement) {
        EXPECT_FALSE(r.summary.empty());
        continue;
      }
      const auto cells = host_cells_of(r);
      const std::set<std::uint32_t> ids(cells.begin(), cells.end());
      EXPECT_EQ(ids.size(), cells.size()) << "trial " << trial;
      EXPECT_TRUE(nova_network_rule(host, ids, guest.networks)) << "trial " << trial << " " << to_string(strategy);
      for (std::size_t g = 0; g < cells.size(); ++g) {
        EXPECT_FALSE(cell_misfit(host, *host.find_cell(cells[g]), guest, guest.cells[g]).has_value())
            << "trial " << trial;
      }
      if (strategy == Strategy::Nova) {
        EXPECT_EQ(cells, *expected) << "trial " << trial;
      }
    }
    (expected ? fitted : refused) += 1;
  }
  // The draw must exercise the rule: it changes the answer in a good share of the trials.
  EXPECT_GT(fitted, 500);
  EXPECT_GT(refused, 300);
  EXPECT_GT(moved, 300);
}

}  // namespace
}  // namespace numaplace

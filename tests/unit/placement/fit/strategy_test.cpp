// SPDX-License-Identifier: LGPL-2.1-or-later
// Scored strategies (strategy.h, best_assignment.h) and compact pinning, on hosts small
// enough to reason about by hand, plus the branch and bound against a brute-force walk.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "placement/fit/best_assignment.h"
#include "placement/fit/cell_fit.h"
#include "placement/fit/cell_score.h"
#include "placement/fit/cpu_pinning.h"
#include "placement/fit/fit.h"
#include "placement/fit/strategy.h"
#include "support/topology_builders.h"

namespace numaplace {
namespace {

constexpr std::uint64_t kGiB = 1024 * 1024;

HostCell make_cell(std::uint32_t id, std::uint32_t cpus, std::uint64_t memory_gib) {
  return testing::flat_cell(id, CpuSet::range(id * cpus, id * cpus + cpus - 1), memory_gib * kGiB);
}

// `n` cells of 8 CPUs and 8 GiB; distances 10 local, `remote` elsewhere.
HostTopology make_host(std::uint32_t n, std::uint32_t remote = 20) {
  HostTopology host;
  for (std::uint32_t i = 0; i < n; ++i) {
    host.cells.push_back(make_cell(i, 8, 8));
    for (std::uint32_t j = 0; j < n; ++j) host.cells.back().distances.push_back(i == j ? 10 : remote);
  }
  return host;
}

GuestTopology shared_guest(std::vector<std::pair<std::uint32_t, std::uint64_t>> cells_vcpus_gib) {
  return testing::guest_of(cells_vcpus_gib, kGiB);
}

FitOptions with(Strategy strategy) {
  FitOptions options;
  options.strategy = strategy;
  return options;
}

std::vector<std::uint32_t> hosts_of(const FitResult& result) {
  std::vector<std::uint32_t> out;
  if (result.placement) {
    for (const auto& c : result.placement->cells) out.push_back(c.host_cell);
  }
  return out;
}

// Memory used: cell 0 6 GiB, cell 1 2 GiB, cell 2 4 GiB (of 8 GiB x RAM ratio 1.5 = 12 GiB).
HostTopology three_cells_unevenly_used() {
  HostTopology host = make_host(3);
  host.cells[0].usage.memory_kib = 6 * kGiB;
  host.cells[1].usage.memory_kib = 2 * kGiB;
  host.cells[2].usage.memory_kib = 4 * kGiB;
  return host;
}

TEST(Strategy, SpreadPicksTheEmptiestCellAndPackTheFullest) {
  const HostTopology host = three_cells_unevenly_used();
  const GuestTopology guest = shared_guest({{1, 1}});
  // With the guest: 7/12, 3/12 and 5/12 of the memory; CPU load is the same everywhere.
  EXPECT_EQ(hosts_of(fit_guest(host, guest, with(Strategy::Spread))), std::vector<std::uint32_t>{1});
  EXPECT_EQ(hosts_of(fit_guest(host, guest, with(Strategy::Pack))), std::vector<std::uint32_t>{0});
  // Nova tries the cell with the most free memory first and takes it.
  EXPECT_EQ(hosts_of(fit_guest(host, guest)), std::vector<std::uint32_t>{1});
}

TEST(Strategy, AdaptivePacksHostsOfThreeCellsOrMoreAndSpreadsHostsOfTwo) {
  const HostTopology three = three_cells_unevenly_used();
  const GuestTopology guest = shared_guest({{1, 1}});
  EXPECT_EQ(hosts_of(fit_guest(three, guest, with(Strategy::Adaptive))), std::vector<std::uint32_t>{0});  // fullest

  HostTopology two = make_host(2);
  two.cells[0].usage.memory_kib = 6 * kGiB;
  two.cells[1].usage.memory_kib = 2 * kGiB;
  EXPECT_EQ(hosts_of(fit_guest(two, guest, with(Strategy::Adaptive))), std::vector<std::uint32_t>{1});  // emptiest
  EXPECT_EQ(hosts_of(fit_guest(two, guest, with(Strategy::Pack))), std::vector<std::uint32_t>{0});

  EXPECT_EQ(cell_scoring_strategy(Strategy::Adaptive, 1), Strategy::Spread);
  EXPECT_EQ(cell_scoring_strategy(Strategy::Adaptive, 2), Strategy::Spread);
  EXPECT_EQ(cell_scoring_strategy(Strategy::Adaptive, 3), Strategy::Pack);
  EXPECT_EQ(cell_scoring_strategy(Strategy::Pack, 2), Strategy::Pack);
  EXPECT_EQ(cell_scoring_strategy(Strategy::Nova, 2), Strategy::Nova);
}

TEST(Strategy, PackNeverChoosesACellThatDoesNotFit) {
  HostTopology host = three_cells_unevenly_used();
  host.cells[0].usage.memory_kib = 12 * kGiB;  // at the limit: the fullest, but full
  EXPECT_EQ(hosts_of(fit_guest(host, shared_guest({{1, 1}}), with(Strategy::Pack))), std::vector<std::uint32_t>{2});
}

TEST(Strategy, SpreadScoresTheWholeAssignment) {
  // Two guest cells, 3 GiB and 1 GiB, on cells with 6, 2 and 4 GiB used: spread puts both on
  // the two emptiest cells, the larger guest cell on the emptiest one.
  const HostTopology host = three_cells_unevenly_used();
  EXPECT_EQ(hosts_of(fit_guest(host, shared_guest({{2, 3}, {2, 1}}), with(Strategy::Spread))),
            (std::vector<std::uint32_t>{1, 2}));
  // Pack: the two fullest cells. The larger guest cell on cell 0 (9/12) and the smaller on cell 2
  // (5/12) scores 38 + 20; the swap scores 29 + 29, a tie at the same distance, so the first one
  // the search reaches stays: the larger guest cell on the cell it fills most.
  EXPECT_EQ(hosts_of(fit_guest(host, shared_guest({{2, 3}, {2, 1}}), with(Strategy::Pack))),
            (std::vector<std::uint32_t>{0, 2}));
}

TEST(Strategy, DistancesBreakTiesTowardCloseCells) {
  // Four empty, identical cells: every pair scores alike; only cells 1 and 3 are close (11).
  HostTopology host = make_host(4, 21);
  host.cells[1].distances[3] = 11;
  host.cells[3].distances[1] = 11;
  const GuestTopology guest = shared_guest({{2, 2}, {2, 2}});
  for (Strategy s : {Strategy::Pack, Strategy::Spread, Strategy::Ratio}) {
    EXPECT_EQ(hosts_of(fit_guest(host, guest, with(s))), (std::vector<std::uint32_t>{1, 3})) << to_string(s);
  }
  // Nova's order knows nothing of distances: the first two cells.
  EXPECT_EQ(hosts_of(fit_guest(host, guest)), (std::vector<std::uint32_t>{0, 1}));
}

TEST(Strategy, DistancesChooseTheClosestTripleOnATwoSocketHost) {
  // Cells 0,1 on socket A (12 between them), 2,3,4 on socket B (12), 21 across.
  HostTopology host = make_host(5, 21);
  auto same_socket = [](std::uint32_t a, std::uint32_t b) { return (a < 2) == (b < 2); };
  for (std::uint32_t i = 0; i < 5; ++i) {
    for (std::uint32_t j = 0; j < 5; ++j) host.cells[i].distances[j] = i == j ? 10 : same_socket(i, j) ? 12 : 21;
  }
  auto got = hosts_of(fit_guest(host, shared_guest({{1, 1}, {1, 1}, {1, 1}}), with(Strategy::Pack)));
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::uint32_t>{2, 3, 4}));
}

TEST(Strategy, RatioFollowsTheShape) {
  // Memory only (cpu weight 0). With a 1 GiB guest cell: 10/12 = 83%, 6/12 = 50%, 1/12 = 8%.
  HostTopology host = make_host(3);
  host.cells[0].usage.memory_kib = 9 * kGiB;
  host.cells[1].usage.memory_kib = 5 * kGiB;
  const GuestTopology guest = shared_guest({{1, 1}});
  FitOptions options = with(Strategy::Ratio);
  options.weights = ResourceWeights{0, 1};
  options.ratio_shape = *parse_ratio_shape("0:0,100:10");
  EXPECT_EQ(hosts_of(fit_guest(host, guest, options)), std::vector<std::uint32_t>{0});
  options.ratio_shape = *parse_ratio_shape("0:10,100:0");
  EXPECT_EQ(hosts_of(fit_guest(host, guest, options)), std::vector<std::uint32_t>{2});
  options.ratio_shape = *parse_ratio_shape("0:0,50:10,100:0");
  EXPECT_EQ(hosts_of(fit_guest(host, guest, options)), std::vector<std::uint32_t>{1});
}

TEST(Strategy, InvalidRatioShapeFitsNothingAndSaysWhy) {
  FitOptions options = with(Strategy::Ratio);
  options.ratio_shape = {{50, 1}, {40, 2}};
  FitResult result = fit_guest(make_host(2), shared_guest({{1, 1}}), options);
  EXPECT_FALSE(result.placement);
  EXPECT_NE(result.summary.find("invalid ratio shape"), std::string::npos) << result.summary;
}

TEST(Strategy, ParsesNamesShapesAndWeights) {
  EXPECT_EQ(*strategy_from_name("pack"), Strategy::Pack);
  EXPECT_EQ(*strategy_from_name("adaptive"), Strategy::Adaptive);
  EXPECT_EQ(to_string(Strategy::Adaptive), "adaptive");
  EXPECT_EQ(strategy_from_name("best").error().name, "UnknownStrategy");
  auto shape = parse_ratio_shape("0:0, 100:10");
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(shape->size(), 2u);
  EXPECT_EQ((*shape)[1].utilization, 100);
  EXPECT_EQ(parse_ratio_shape("0:0,100").error().name, "InvalidScoringShape");
  EXPECT_EQ(parse_ratio_shape("0:0,100:11").error().name, "InvalidScoringShape");
  EXPECT_EQ(parse_ratio_shape("50:1,40:2").error().name, "InvalidScoringShape");
  auto weights = parse_resource_weights("cpu=2,memory=3");
  ASSERT_TRUE(weights.ok());
  EXPECT_EQ(weights->cpu, 2);
  EXPECT_EQ(weights->memory, 3);
  EXPECT_EQ(parse_resource_weights("gpu=1").error().name, "InvalidResourceWeights");
  EXPECT_EQ(parse_resource_weights("cpu=0,memory=0").error().name, "InvalidResourceWeights");
  EXPECT_EQ(parse_resource_weights("cpu=-1").error().name, "InvalidResourceWeights");
}

TEST(Strategy, CellLoadCountsPinnedCpusWholeAndFloatingOnesOverTheRatio) {
  HostTopology host = make_host(1);
  host.cells[0].usage.pinned_cpus = CpuSet{0, 1};
  host.cells[0].usage.shared_cpus = 32;  // 2 pCPUs' worth at CPU ratio 16
  GuestTopology guest = shared_guest({{4, 2}});
  guest.cpu_policy = CpuPolicy::Dedicated;
  guest.cells[0].dedicated_cpus = guest.cells[0].cpus;
  CellLoad load = cell_load_after(host, host.cells[0], guest, guest.cells[0], 0, false);
  EXPECT_EQ(load.cpu_used_milli, 8000);  // 2 pinned + 2 floating-equivalent + 4 new
  EXPECT_EQ(load.cpu_capacity_milli, 8000);
  EXPECT_EQ(load.memory_capacity_kib, static_cast<std::int64_t>(8 * kGiB));  // pinned: no RAM ratio
  EXPECT_EQ(load.cpu_percent(), 100);
  EXPECT_EQ(load.memory_percent(), 25);
}

// An SMT cell of 4 cores (threads c and c+4); core 0 has one thread pinned already.
HostCell smt_cell_with_a_half_used_core() {
  HostCell cell;
  cell.id = 0;
  cell.cpus = CpuSet::range(0, 7);
  cell.shared_cpus = cell.cpus;
  cell.dedicated_cpus = cell.cpus;
  for (std::uint32_t c = 0; c < 4; ++c) cell.siblings.push_back(CpuSet{c, c + 4});
  cell.memory_kib = 8 * kGiB;
  cell.usage.pinned_cpus = CpuSet{0};
  return cell;
}

TEST(CompactPinning, AnOddVcpuGoesBesideAHalfUsedCore) {
  const HostCell cell = smt_cell_with_a_half_used_core();
  auto nova = pin_dedicated_cpus(cell, CpuSet{0}, ThreadPolicy::Prefer, 0, nullptr, PinningStyle::NovaOrder);
  auto compact = pin_dedicated_cpus(cell, CpuSet{0}, ThreadPolicy::Prefer, 0, nullptr, PinningStyle::Compact);
  ASSERT_TRUE(nova && compact);
  EXPECT_EQ(nova->pinning[0].second, 1u);     // breaks whole core 1
  EXPECT_EQ(compact->pinning[0].second, 4u);  // the free sibling of pinned pCPU 0
  // Three vCPUs: one whole core plus the half-used core's thread, leaving two whole cores.
  auto three = pin_dedicated_cpus(cell, CpuSet{0, 1, 2}, ThreadPolicy::Prefer, 0, nullptr, PinningStyle::Compact);
  ASSERT_TRUE(three);
  CpuSet used;
  for (const auto& [v, p] : three->pinning) used.insert(p);
  EXPECT_EQ(to_cpu_list(used), "1,4-5");
}

TEST(CompactPinning, TheEmulatorPcpuTakesTheHalfUsedCore) {
  const HostCell cell = smt_cell_with_a_half_used_core();
  auto pinned = pin_dedicated_cpus(cell, CpuSet{0, 1}, ThreadPolicy::Isolate, 1, nullptr, PinningStyle::Compact);
  ASSERT_TRUE(pinned);
  EXPECT_EQ(to_cpu_list(pinned->reserved), "4");
  for (const auto& [v, p] : pinned->pinning) EXPECT_NE(p % 4, 0u);  // isolate: whole free cores only
}

TEST(CompactPinning, FitsExactlyWhereNovaOrderFits) {
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    HostCell cell = smt_cell_with_a_half_used_core();
    cell.usage.pinned_cpus = CpuSet{};
    for (std::uint32_t cpu = 0; cpu < 8; ++cpu) {
      if (rng() % 3 == 0) cell.usage.pinned_cpus.insert(cpu);
    }
    const auto policy = static_cast<ThreadPolicy>(rng() % 4);
    const std::uint32_t reserve = rng() % 2;
    const std::uint32_t wanted = 1 + rng() % 6;
    const CpuSet vcpus = CpuSet::range(0, wanted - 1);
    auto nova = pin_dedicated_cpus(cell, vcpus, policy, reserve, nullptr, PinningStyle::NovaOrder);
    auto compact = pin_dedicated_cpus(cell, vcpus, policy, reserve, nullptr, PinningStyle::Compact);
    ASSERT_EQ(nova.has_value(), compact.has_value()) << "round " << round;
    if (!compact) continue;
    CpuSet used;
    for (const auto& [v, p] : compact->pinning) {
      EXPECT_FALSE(cell.usage.pinned_cpus.contains(p));
      used.insert(p);
    }
    EXPECT_EQ(used.size(), wanted);
    EXPECT_FALSE(used.intersects(compact->reserved));
  }
}

// Brute force: the best (score, then distance) over every injective assignment.
TEST(BestAssignment, MatchesABruteForceWalkOnRandomHosts) {
  std::mt19937 rng(99);
  for (int round = 0; round < 300; ++round) {
    const std::uint32_t n = 2 + rng() % 5;
    HostTopology host = make_host(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      host.cells[i].usage.memory_kib = kGiB / 2 * (rng() % 20);
      for (std::uint32_t j = 0; j < i; ++j) {
        host.cells[i].distances[j] = host.cells[j].distances[i] = 11 + rng() % 20;
      }
    }
    std::vector<std::pair<std::uint32_t, std::uint64_t>> cells;
    const std::uint32_t k = 1 + rng() % n;
    for (std::uint32_t g = 0; g < k; ++g) cells.emplace_back(1 + rng() % 4, 1 + rng() % 3);
    const GuestTopology guest = shared_guest(cells);
    const Strategy strategy = rng() % 2 ? Strategy::Pack : Strategy::Spread;
    FitOptions options = with(strategy);
    options.explain = true;
    FitResult result = fit_guest(host, guest, options);
    ASSERT_TRUE(result.explanation);
    const FitExplanation& explanation = *result.explanation;

    // Scores by (guest cell, host cell) from the explanation; brute force over permutations.
    auto score_of = [&](std::uint32_t g, std::uint32_t h) -> std::optional<std::int64_t> {
      for (const auto& p : explanation.pairs) {
        if (p.guest_cell == g && p.host_cell == h) return p.fits ? std::optional<std::int64_t>(p.score) : std::nullopt;
      }
      return std::nullopt;
    };
    std::vector<std::uint32_t> ids(n);
    std::iota(ids.begin(), ids.end(), 0);
    std::optional<std::pair<std::int64_t, std::int64_t>> best;
    do {
      std::int64_t score = 0;
      std::int64_t distance = 0;
      bool ok = true;
      for (std::uint32_t g = 0; g < k && ok; ++g) {
        auto s = score_of(g, ids[g]);
        ok = s.has_value();
        score += s.value_or(0);
        for (std::uint32_t e = 0; e < g; ++e) distance += host.cells[ids[e]].distances[ids[g]];
      }
      if (ok && (!best || score > best->first || (score == best->first && distance < best->second))) {
        best = std::make_pair(score, distance);
      }
    } while (std::next_permutation(ids.begin(), ids.end()));

    ASSERT_EQ(result.placement.has_value(), best.has_value()) << "round " << round;
    if (!best) continue;
    ASSERT_TRUE(explanation.chosen);
    EXPECT_FALSE(explanation.capped);
    EXPECT_EQ(explanation.chosen->score, best->first) << "round " << round;
    EXPECT_EQ(explanation.chosen->distance, best->second) << "round " << round;
  }
}

}  // namespace
}  // namespace numaplace

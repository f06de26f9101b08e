// SPDX-License-Identifier: LGPL-2.1-or-later
// FitResult::explanation (FitOptions::explain): every pair assessed, rejections naming the resource and the
// amounts, the chosen assignment against the runner-up, and the verdict sentence.
#include <gtest/gtest.h>

#include "placement/fit/fit.h"
#include "placement/fit/fit_explanation.h"
#include "support/topology_builders.h"

namespace numaplace {
namespace {

constexpr std::uint64_t kGiB = 1024 * 1024;

HostCell make_cell(std::uint32_t id, std::uint64_t memory_gib) {
  return testing::flat_cell(id, CpuSet::range(id * 4, id * 4 + 3), memory_gib * kGiB);
}

// Guest cells of {vCPUs, GiB}, every vCPU dedicated.
GuestTopology dedicated_guest(std::vector<std::pair<std::uint32_t, std::uint64_t>> cells) {
  GuestTopology guest = testing::guest_of(cells, kGiB);
  guest.cpu_policy = CpuPolicy::Dedicated;
  for (auto& cell : guest.cells) cell.dedicated_cpus = cell.cpus;
  return guest;
}

const PairAssessment* find_pair(const FitExplanation& e, std::uint32_t guest, std::uint32_t host) {
  for (const auto& p : e.pairs) {
    if (p.guest_cell == guest && p.host_cell == host) return &p;
  }
  return nullptr;
}

TEST(Explain, EveryPairIsAssessedAndRejectionsNameResourceAndAmounts) {
  // Cell 0: 4 CPUs, 3 pinned; cell 1: 2 GiB; cell 2: roomy.
  HostTopology host;
  host.cells = {make_cell(0, 8), make_cell(1, 2), make_cell(2, 8)};
  host.cells[0].usage.pinned_cpus = CpuSet{0, 1, 2};
  FitOptions options;
  options.strategy = Strategy::Pack;
  options.explain = true;
  FitResult result = fit_guest(host, dedicated_guest({{2, 4}}), options);
  ASSERT_TRUE(result.explanation);
  const FitExplanation& e = *result.explanation;
  ASSERT_TRUE(result.placement);
  EXPECT_EQ(result.placement->cells[0].host_cell, 2u);
  ASSERT_TRUE(e.filled);
  ASSERT_EQ(e.pairs.size(), 3u);

  const PairAssessment* cpu_short = find_pair(e, 0, 0);
  ASSERT_NE(cpu_short, nullptr);
  EXPECT_FALSE(cpu_short->fits);
  EXPECT_NE(cpu_short->reason.find("2 dedicated vCPUs"), std::string::npos) << cpu_short->reason;
  EXPECT_NE(cpu_short->reason.find("1 free of 4"), std::string::npos) << cpu_short->reason;
  EXPECT_NE(cpu_short->reason.find("3 pinned"), std::string::npos) << cpu_short->reason;

  const PairAssessment* memory_short = find_pair(e, 0, 1);
  ASSERT_NE(memory_short, nullptr);
  EXPECT_FALSE(memory_short->fits);
  EXPECT_NE(memory_short->reason.find("memory"), std::string::npos) << memory_short->reason;
  EXPECT_NE(memory_short->reason.find("4096 MiB"), std::string::npos) << memory_short->reason;
  EXPECT_NE(memory_short->reason.find("2048 MiB"), std::string::npos) << memory_short->reason;

  const PairAssessment* fits = find_pair(e, 0, 2);
  ASSERT_NE(fits, nullptr);
  EXPECT_TRUE(fits->fits);
  EXPECT_EQ(fits->cpu_percent, 50);     // 2 of 4 pCPUs
  EXPECT_EQ(fits->memory_percent, 50);  // 4 of 8 GiB
  EXPECT_EQ(fits->score, 50);           // MostAllocated: (50 + 50) / 2

  // The only cell that fits: no runner-up, and the verdict says so.
  EXPECT_FALSE(e.runner_up);
  EXPECT_NE(e.verdict.find("only assignment"), std::string::npos) << e.verdict;
  // The same rejections are in the result itself.
  EXPECT_EQ(result.rejections.size(), 2u);
}

TEST(Explain, TheChosenAssignmentBeatsTheRunnerUpOnScore) {
  // Pack: cell 1 already has 2 of 4 pCPUs pinned, so a 1-vCPU 1 GiB guest fills it more.
  HostTopology host;
  host.cells = {make_cell(0, 4), make_cell(1, 4)};
  host.cells[1].usage.pinned_cpus = CpuSet{4, 5};
  FitOptions options;
  options.strategy = Strategy::Pack;
  options.explain = true;
  FitResult result = fit_guest(host, dedicated_guest({{1, 1}}), options);
  ASSERT_TRUE(result.placement);
  ASSERT_TRUE(result.explanation);
  const FitExplanation& e = *result.explanation;
  ASSERT_TRUE(e.chosen && e.runner_up);
  EXPECT_EQ(e.chosen->cells[0].second, 1u);
  EXPECT_EQ(e.runner_up->cells[0].second, 0u);
  // Cell 1: cpu 75%, memory 25% -> 50; cell 0: cpu 25%, memory 25% -> 25.
  EXPECT_EQ(e.chosen->score, 50);
  EXPECT_EQ(e.runner_up->score, 25);
  EXPECT_NE(e.verdict.find("scores higher"), std::string::npos) << e.verdict;
  EXPECT_NE(e.verdict.find("score 50"), std::string::npos) << e.verdict;
  EXPECT_NE(e.verdict.find("score 25"), std::string::npos) << e.verdict;
}

TEST(Explain, ATieOnScoreIsWonOnDistance) {
  HostTopology host;
  host.cells = {make_cell(0, 4), make_cell(1, 4), make_cell(2, 4)};
  const std::vector<std::vector<std::uint32_t>> d{{10, 21, 21}, {21, 10, 12}, {21, 12, 10}};
  for (std::size_t i = 0; i < 3; ++i) host.cells[i].distances = d[i];
  FitOptions options;
  options.strategy = Strategy::Spread;
  options.explain = true;
  FitResult result = fit_guest(host, dedicated_guest({{1, 1}, {1, 1}}), options);
  ASSERT_TRUE(result.placement);
  ASSERT_TRUE(result.explanation);
  const FitExplanation& e = *result.explanation;
  ASSERT_TRUE(e.chosen && e.runner_up);
  EXPECT_EQ(e.chosen->distance, 12);
  EXPECT_EQ(e.runner_up->distance, 21);
  EXPECT_EQ(e.chosen->score, e.runner_up->score);
  EXPECT_NE(e.verdict.find("closer"), std::string::npos) << e.verdict;
}

TEST(Explain, NovaSaysItTakesTheFirstFitInItsOrder) {
  HostTopology host;
  host.cells = {make_cell(0, 4), make_cell(1, 8)};
  FitOptions options;
  options.explain = true;
  FitResult result = fit_guest(host, dedicated_guest({{1, 1}}), options);
  ASSERT_TRUE(result.placement);
  ASSERT_TRUE(result.explanation);
  const FitExplanation& e = *result.explanation;
  EXPECT_EQ(e.host_order, (std::vector<std::uint32_t>{1, 0}));  // most free memory first
  EXPECT_NE(e.verdict.find("first assignment that fits"), std::string::npos) << e.verdict;
  EXPECT_NE(e.verdict.find("(1, 0)"), std::string::npos) << e.verdict;
}

TEST(Explain, ARefusalSaysWhyAndKeepsEveryPair) {
  HostTopology host;
  host.cells = {make_cell(0, 2), make_cell(1, 2)};
  FitOptions options;
  options.strategy = Strategy::Pack;
  options.explain = true;
  FitResult result = fit_guest(host, dedicated_guest({{1, 3}}), options);
  ASSERT_TRUE(result.explanation);
  const FitExplanation& e = *result.explanation;
  EXPECT_FALSE(result.placement);
  EXPECT_EQ(e.pairs.size(), 2u);
  for (const auto& p : e.pairs) EXPECT_FALSE(p.fits);
  EXPECT_FALSE(e.chosen);
  EXPECT_NE(e.verdict.find("nothing fits"), std::string::npos) << e.verdict;
}

TEST(Explain, IsComputedOnlyWhenAsked) {
  // The cost rule: without FitOptions::explain no explanation (and no runner-up search) is made.
  HostTopology host;
  host.cells = {make_cell(0, 4), make_cell(1, 4)};
  FitOptions options;
  options.strategy = Strategy::Pack;
  FitResult result = fit_guest(host, dedicated_guest({{1, 1}}), options);
  ASSERT_TRUE(result.placement);
  EXPECT_FALSE(result.explanation);
}

}  // namespace
}  // namespace numaplace

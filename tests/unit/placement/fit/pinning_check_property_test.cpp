// SPDX-License-Identifier: LGPL-2.1-or-later
// The count-based pinning check (pinning_check.h) and fit_cell_decision (cell_fit.h) against what
// they stand in for, on random cells: the pinning pin_dedicated_cpus builds (its answer, and the
// pCPUs it takes counted here from the pinning itself), and fit_cell's full answer. The cells are
// drawn to reach every rule: sibling groups of mixed sizes in any order, none at all, groups
// that overlap or miss CPUs, dedicated and shared sets equal, apart or overlapping, pinned pCPUs
// anywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "placement/fit/cell_fit.h"
#include "placement/fit/cpu_pinning.h"
#include "placement/fit/pinning_check.h"

namespace numaplace {
namespace {

CpuSet random_subset(const CpuSet& of, std::mt19937& rng, unsigned percent) {
  CpuSet out;
  for (std::uint32_t cpu : of) {
    if (rng() % 100 < percent) out.insert(cpu);
  }
  return out;
}

// A random cell: CPUs `base`.., cut into cores of 1-4 threads (or of one size), the cores listed
// in a shuffled order; now and then without siblings, with a CPU in two groups or in none.
HostCell random_cell(std::mt19937& rng) {
  HostCell cell;
  const std::uint32_t base = rng() % 4 == 0 ? static_cast<std::uint32_t>(rng() % 300) : 0;
  const std::uint32_t count = 1 + static_cast<std::uint32_t>(rng() % 24);
  cell.cpus = CpuSet::range(base, base + count - 1);
  const std::uint32_t fixed = rng() % 2 == 0 ? 1 + static_cast<std::uint32_t>(rng() % 4) : 0;
  std::vector<CpuSet> groups;
  for (std::uint32_t cpu = base; cpu < base + count;) {
    const std::uint32_t size = std::min(fixed ? fixed : 1 + static_cast<std::uint32_t>(rng() % 4), base + count - cpu);
    groups.push_back(CpuSet::range(cpu, cpu + size - 1));
    cpu += size;
  }
  std::shuffle(groups.begin(), groups.end(), rng);
  switch (rng() % 10) {
    case 0: groups.clear(); break;  // the host reports no siblings
    case 1: groups[rng() % groups.size()].insert(base + static_cast<std::uint32_t>(rng() % count)); break;  // overlap
    case 2: if (groups.size() > 1) groups.pop_back(); break;  // CPUs in no group
    default: break;
  }
  cell.siblings = groups;
  switch (rng() % 4) {
    case 0: cell.dedicated_cpus = random_subset(cell.cpus, rng, 70); break;
    default: cell.dedicated_cpus = cell.cpus; break;
  }
  switch (rng() % 4) {
    case 0: cell.shared_cpus = cell.cpus.minus(cell.dedicated_cpus); break;  // cpu_shared_set apart
    case 1: cell.shared_cpus = random_subset(cell.cpus, rng, 50); break;
    default: cell.shared_cpus = cell.dedicated_cpus; break;
  }
  cell.usage.pinned_cpus = random_subset(cell.cpus, rng, static_cast<unsigned>(rng() % 60));
  cell.memory_kib = std::uint64_t{16} << 20;
  return cell;
}

ThreadPolicy random_policy(std::mt19937& rng) {
  const ThreadPolicy all[] = {ThreadPolicy::Unset, ThreadPolicy::Prefer, ThreadPolicy::Isolate, ThreadPolicy::Require};
  return all[rng() % 4];
}

// The pCPUs a pinning takes that lie in `within`, read off the pinning.
std::size_t taken_in(const CpuPinning& pinning, const CpuSet& within) {
  CpuSet taken = pinning.reserved.united(pinning.isolated);
  for (const auto& [vcpu, pcpu] : pinning.pinning) taken.insert(pcpu);
  std::size_t n = 0;
  for (std::uint32_t cpu : taken) n += within.contains(cpu) ? 1 : 0;
  return n;
}

bool groups_disjoint(const HostCell& cell) {
  for (std::size_t a = 0; a < cell.siblings.size(); ++a) {
    for (std::size_t b = a + 1; b < cell.siblings.size(); ++b) {
      for (std::uint32_t cpu : cell.siblings[a]) {
        if (cell.siblings[b].contains(cpu)) return false;
      }
    }
  }
  return true;
}

TEST(PinningCheckProperty, AgreesWithThePinningOnRandomCells) {
  std::mt19937 rng(20261202);
  std::size_t fits = 0, misfits = 0, undecided = 0, usual_undecided = 0;
  for (int round = 0; round < 40000; ++round) {
    const HostCell cell = random_cell(rng);
    const std::size_t wanted = rng() % 12;
    const ThreadPolicy policy = random_policy(rng);
    const auto reserve = static_cast<std::uint32_t>(rng() % 3);
    const bool whole_core_emulator = rng() % 2 == 0;
    // Mostly what fit_cell passes (the floating set of a real host), sometimes any set.
    const CpuSet within = rng() % 4 == 0 ? random_subset(cell.cpus, rng, 50) : cell.shared_cpus.minus(cell.usage.pinned_cpus);
    const bool with_within = rng() % 5 != 0;
    const CpuSet vcpus = wanted == 0 ? CpuSet{} : CpuSet::range(0, static_cast<std::uint32_t>(wanted - 1));
    const auto pinning =
        pin_dedicated_cpus(cell, vcpus, policy, reserve, nullptr, PinningStyle::NovaOrder, whole_core_emulator);
    const PinningCheck check =
        check_dedicated_pinning(cell, wanted, policy, reserve, whole_core_emulator, with_within ? &within : nullptr);
    if (check.verdict == PinningCheck::Verdict::Undecided) {
      ++undecided;
      // Counts decide every cell whose groups are disjoint and whose free pCPUs are all, or none,
      // in the set counted (a real host's usual shapes), and every isolate cell with disjoint groups.
      const CpuSet free = cell.dedicated_cpus.minus(cell.usage.pinned_cpus);
      const bool all_or_none = free.is_subset_of(within) || !free.intersects(within);
      if (groups_disjoint(cell) && (all_or_none || policy == ThreadPolicy::Isolate || !with_within)) ++usual_undecided;
      continue;
    }
    ASSERT_EQ(check.verdict == PinningCheck::Verdict::Fits, pinning.has_value())
        << "round " << round << " wanted " << wanted << " reserve " << reserve << " policy "
        << to_string(policy) << " cpus " << to_cpu_list(cell.cpus) << " dedicated " << to_cpu_list(cell.dedicated_cpus)
        << " pinned " << to_cpu_list(cell.usage.pinned_cpus);
    if (pinning) {
      ++fits;
      EXPECT_EQ(check.taken_within, with_within ? taken_in(*pinning, within) : 0) << "round " << round;
    } else {
      ++misfits;
    }
  }
  EXPECT_EQ(usual_undecided, 0u);
  // Every outcome was reached often; the cells counts leave to the pinning (drawn far more often
  // here than hosts have them) stay a minority.
  EXPECT_GT(fits, 5000u);
  EXPECT_GT(misfits, 5000u);
  EXPECT_LT(undecided, 40000u / 4);
}

// fit_cell_decision gives fit_cell's answer (fits, reason, page size) on random cells and guest
// cells of every CPU policy, on a real host and on Nova's model, with and without ratio limits.
TEST(CellFitDecision, GivesFitCellsAnswerOnRandomCells) {
  std::mt19937 rng(1712);
  const CpuPolicy policies[] = {CpuPolicy::Unset, CpuPolicy::Shared, CpuPolicy::Dedicated, CpuPolicy::Mixed};
  std::size_t fitted = 0, refused = 0;
  for (int round = 0; round < 20000; ++round) {
    HostTopology host;
    host.accounting = rng() % 3 == 0 ? Accounting::Nova : Accounting::Exclusive;
    host.ratio.enforced = rng() % 5 != 0;
    host.ratio.cpu = static_cast<double>(1 + rng() % 16);
    host.ratio.ram = rng() % 2 == 0 ? 1.0 : 1.5;
    HostCell cell = random_cell(rng);
    cell.usage.shared_cpus = static_cast<double>(rng() % 40);
    cell.usage.memory_kib = (rng() % 20) * (std::uint64_t{1} << 20);
    if (rng() % 3 == 0) {
      cell.pages = {PagePool{4, cell.memory_kib / 4, 0, 0}, PagePool{2048, 2048, rng() % 2048, 0}};
    }
    host.cells.push_back(cell);
    GuestTopology guest;
    guest.cpu_policy = policies[rng() % 4];
    guest.thread_policy = random_policy(rng);
    guest.emulator_threads_policy = rng() % 3 == 0 ? EmulatorThreadsPolicy::Isolate : EmulatorThreadsPolicy::Unset;
    GuestCell guest_cell;
    const auto vcpus = static_cast<std::uint32_t>(1 + rng() % 10);
    guest_cell.cpus = CpuSet::range(0, vcpus - 1);
    if (guest.cpu_policy == CpuPolicy::Dedicated) guest_cell.dedicated_cpus = guest_cell.cpus;
    if (guest.cpu_policy == CpuPolicy::Mixed) guest_cell.dedicated_cpus = random_subset(guest_cell.cpus, rng, 50);
    guest_cell.memory_kib = (1 + rng() % 8) * (std::uint64_t{1} << 20);
    if (rng() % 4 == 0) guest_cell.pagesize = rng() % 2 == 0 ? kPageSizeLarge : 2048;
    guest.cells.push_back(guest_cell);
    const bool reserve = reserves_emulator_cpu(guest, guest.cells[0]);
    const CellFit full = fit_cell(host, host.cells[0], guest, guest.cells[0], reserve);
    const CellFit decided = fit_cell_decision(host, host.cells[0], guest, guest.cells[0], reserve);
    ASSERT_EQ(decided.fits, full.fits) << "round " << round << ": " << full.reason;
    EXPECT_EQ(decided.reason, full.reason) << "round " << round;
    EXPECT_EQ(decided.pagesize_kib, full.pagesize_kib) << "round " << round;
    EXPECT_TRUE(decided.pinning.pinning.empty());
    (full.fits ? fitted : refused) += 1;
  }
  EXPECT_GT(fitted, 3000u);
  EXPECT_GT(refused, 3000u);
}

}  // namespace
}  // namespace numaplace

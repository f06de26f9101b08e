// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/fit/pinning_check.h"

#include <algorithm>
#include <vector>

namespace numaplace {
namespace {

using Verdict = PinningCheck::Verdict;

PinningCheck verdict(Verdict v, std::size_t taken_within = 0) { return PinningCheck{v, taken_within}; }

// Bits set in a word that holds few (one core's threads): one step per bit.
std::uint32_t few_bits(std::uint64_t w) {
  std::uint32_t n = 0;
  for (; w != 0; w &= w - 1) ++n;
  return n;
}

}  // namespace

// The rules below are pin_dedicated_cpus's, read as counts (cpu_pinning.cpp, Nova's order: cores
// in sibling order, each core's free threads ascending):
//  - isolate takes one thread of each of the first `wanted` fully free cores, then reserves from
//    the cores after it skips, in order, and holds every other thread of each core it touched;
//  - prefer always ends, if nothing else, with every free pCPU on its own, so it fits exactly when
//    the free pCPUs of the sibling groups number `wanted` + `reserve`;
//  - require fits when for some t >= 2, t threads of each core with t free hold `wanted`;
//  - outside isolate, the reserve is any free pCPU the pins left, so it only needs enough of them.
PinningCheck check_dedicated_pinning(const HostCell& cell, std::size_t wanted, ThreadPolicy policy,
                                     std::uint32_t reserve, bool whole_core_emulator, const CpuSet* within) {
  if (wanted == 0) return verdict(Verdict::NoFit);
  const CpuSet& pinned = cell.usage.pinned_cpus;
  // An id above kMaxCpuId (which no reader accepts) is in no word: let the pinning decide.
  if (cell.dedicated_cpus.has_ids_above_max() || pinned.has_ids_above_max() ||
      (within != nullptr && within->has_ids_above_max())) {
    return verdict(Verdict::Undecided);
  }
  // Word i of the free pCPUs, and of those in `within`, made once; everything below is word-wise.
  // Per thread, reused (this runs for every pair), as are the per-group counts and `seen`, where
  // the groups' words are ORed to find a pCPU in two groups (all zero between calls).
  thread_local std::vector<std::uint64_t> free_words;
  thread_local std::vector<std::uint64_t> free_within_words;
  thread_local std::vector<std::uint32_t> free_of;
  thread_local std::vector<std::uint64_t> seen;
  const std::uint32_t words = cell.dedicated_cpus.word_count();
  free_words.resize(words);
  free_within_words.resize(words);
  for (std::uint32_t i = 0; i < words; ++i) {
    free_words[i] = cell.dedicated_cpus.word(i) & ~pinned.word(i);
    free_within_words[i] = within != nullptr ? free_words[i] & within->word(i) : 0;
  }
  // Without sibling groups every CPU is its own core (sibling_groups): one thread per core, and
  // every free pCPU (free pCPUs are dedicated ones, which that fallback covers) is a whole core.
  const bool singles = cell.siblings.empty();
  free_of.clear();
  std::uint32_t threads_per_core = 1;
  std::size_t total = 0;         // free pCPUs in the sibling groups
  std::size_t total_within = 0;  // ... of them in `within`
  if (singles) {
    for (std::uint32_t i = 0; i < words; ++i) {
      total += bits_in_word(free_words[i]);
      total_within += bits_in_word(free_within_words[i]);
    }
  } else {
    bool overlap = false;
    for (const CpuSet& group : cell.siblings) {
      threads_per_core = std::max(threads_per_core, static_cast<std::uint32_t>(group.size()));
      overlap = overlap || group.has_ids_above_max();
      if (seen.size() < group.word_count()) seen.resize(group.word_count(), 0);
      std::uint32_t here = 0;
      for (std::uint32_t i = 0; i < group.word_count(); ++i) {
        const std::uint64_t ids = group.word(i);
        if (ids == 0) continue;
        overlap = overlap || (seen[i] & ids) != 0;
        seen[i] |= ids;
        if (i >= words) continue;
        here += few_bits(ids & free_words[i]);
        total_within += few_bits(ids & free_within_words[i]);
      }
      free_of.push_back(here);
      total += here;
    }
    for (const CpuSet& group : cell.siblings) {
      for (std::uint32_t i = 0; i < group.word_count(); ++i) seen[i] = 0;
    }
    // A pCPU in two groups would be counted twice where the pinning sees it once: let it decide.
    if (overlap) return verdict(Verdict::Undecided);
  }
  const auto cores_with_at_least = [&](std::uint32_t t) -> std::size_t {
    if (singles) return t <= 1 ? total : 0;
    return static_cast<std::size_t>(std::count_if(free_of.begin(), free_of.end(), [t](std::uint32_t n) { return n >= t; }));
  };

  if (policy == ThreadPolicy::Isolate) {
    if (threads_per_core != 1 && cell.dedicated_cpus != cell.shared_cpus) return verdict(Verdict::NoFit);
    const std::size_t whole = singles ? total : static_cast<std::size_t>(std::count(free_of.begin(), free_of.end(), threads_per_core));
    if (whole < wanted) return verdict(Verdict::NoFit);
    // One walk in sibling order: the first `wanted` whole cores are pinned; the reserve comes from
    // the cores the pinning left, in the same order (whole ones only on a real host).
    const std::uint32_t reserve_needs = whole_core_emulator ? threads_per_core : 1;
    std::size_t pinned_cores = 0;
    std::size_t got = 0;
    std::size_t taken = 0;
    const auto walk = [&](std::uint32_t free_here, auto taken_of_core) {
      if (free_here == 0) return;  // no free thread: not a core the pinning sees
      if (pinned_cores < wanted && free_here == threads_per_core) {
        ++pinned_cores;
      } else if (got < reserve && free_here >= reserve_needs) {
        got += std::min<std::size_t>(free_here, reserve - got);
      } else {
        return;
      }
      if (within != nullptr) taken += taken_of_core();
    };
    if (singles) {
      for (std::uint32_t cpu : cell.dedicated_cpus) {
        if (!pinned.contains(cpu)) walk(1, [&] { return within->contains(cpu) ? std::size_t{1} : std::size_t{0}; });
      }  // (isolate without siblings is rare: ids one by one)
    } else {
      for (std::size_t g = 0; g < cell.siblings.size(); ++g) {
        // A touched core holds all of its threads no other guest holds: pins, reserve, isolated.
        walk(free_of[g], [&] {
          const CpuSet& group = cell.siblings[g];
          std::size_t n = 0;
          for (std::uint32_t i = 0; i < group.word_count(); ++i) {
            n += bits_in_word(group.word(i) & ~pinned.word(i) & within->word(i));
          }
          return n;
        });
      }
    }
    if (got < reserve) return verdict(Verdict::NoFit);
    return verdict(Verdict::Fits, taken);
  }

  const bool require = policy == ThreadPolicy::Require;
  if (require && threads_per_core <= 1) return verdict(Verdict::NoFit);
  bool pins = !require && total >= wanted;
  for (std::uint32_t t = require ? 2 : 1; t <= threads_per_core && !pins; ++t) {
    const std::size_t n = cores_with_at_least(t);
    pins = n > 0 && t * n >= wanted;
  }
  if (!pins || total - wanted < reserve) return verdict(Verdict::NoFit);
  if (within == nullptr) return verdict(Verdict::Fits);
  // Which free pCPUs are taken depends on the order; how many of them lie in `within` does not
  // when all or none of the free ones do.
  if (total_within == total) return verdict(Verdict::Fits, wanted + reserve);
  if (total_within == 0) return verdict(Verdict::Fits, 0);
  return verdict(Verdict::Undecided);
}

}  // namespace numaplace

// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/fit/cpu_pinning.h"

#include <algorithm>

#include "placement/fit/stable_insertion_sort.h"
#include "placement/model/count_words.h"

namespace numaplace {
namespace {

// The free threads of every core, flat, in sibling order; cores without a free thread dropped.
struct FreeCores {
  std::vector<std::uint32_t> threads;                     // ascending within a core
  std::vector<std::pair<std::uint32_t, std::uint32_t>> spans;  // [begin, end) into threads, per core

  std::uint32_t size(std::size_t core) const { return spans[core].second - spans[core].first; }
  std::size_t count_with_at_least(std::uint32_t t) const {
    std::size_t n = 0;
    for (std::size_t c = 0; c < spans.size(); ++c) n += size(c) >= t ? 1 : 0;
    return n;
  }
};

struct Choice {
  std::vector<std::uint32_t> pcpus;       // one per vCPU, in vCPU order
  std::vector<std::uint32_t> used_cores;  // core indexes the pinning touches
};

// Core indexes in the order a style visits them: the host's sibling order, or (Compact)
// the most used cores first, so that partly used cores fill before whole ones break.
void visit_order(const FreeCores& cores, PinningStyle style, std::vector<std::size_t>& order) {
  order.resize(cores.spans.size());
  for (std::size_t c = 0; c < order.size(); ++c) order[c] = c;
  if (style == PinningStyle::Compact) {
    stable_insertion_sort(order.begin(), order.end(),
                          [&](std::size_t a, std::size_t b) { return cores.size(a) < cores.size(b); });
  }
}

// Working buffers reused from call to call on a thread: a fit checks pinning for every pair of
// guest cell and host cell, and a ranking does that for thousands of hosts.
struct PinningScratch {
  FreeCores cores;
  FreeCores whole;
  Choice choice;
  std::vector<std::size_t> order;
  std::vector<std::size_t> whole_order;
};

// The first `t` free threads of each core with at least `t`, visiting cores in `order`, one per vCPU.
bool take_threads(const FreeCores& cores, std::uint32_t t, std::size_t wanted, const std::vector<std::size_t>& order,
                  Choice* out) {
  if (t * cores.count_with_at_least(t) < wanted) return false;
  out->pcpus.clear();
  out->used_cores.clear();
  for (std::size_t c : order) {
    if (out->pcpus.size() >= wanted) break;
    if (cores.size(c) < t) continue;
    out->used_cores.push_back(static_cast<std::uint32_t>(c));
    for (std::uint32_t i = 0; i < t && out->pcpus.size() < wanted; ++i) {
      out->pcpus.push_back(cores.threads[cores.spans[c].first + i]);
    }
  }
  return true;
}

// Compact prefer: wanted / t whole free cores, the remainder on the most used core that can hold it.
bool take_compact(const FreeCores& cores, std::uint32_t t, std::size_t wanted, const std::vector<std::size_t>& order,
                  Choice* out) {
  out->pcpus.clear();
  out->used_cores.clear();
  const std::size_t whole_needed = wanted / t;
  const std::size_t remainder = wanted % t;
  for (std::size_t c : order) {
    if (out->used_cores.size() == whole_needed) break;
    if (cores.size(c) != t) continue;
    out->used_cores.push_back(static_cast<std::uint32_t>(c));
    for (std::uint32_t i = cores.spans[c].first; i < cores.spans[c].second; ++i) out->pcpus.push_back(cores.threads[i]);
  }
  if (out->used_cores.size() < whole_needed) return false;
  if (remainder == 0) return true;
  for (std::size_t c : order) {  // ascending free threads: the tightest core that holds the remainder
    if (cores.size(c) < remainder) continue;
    if (std::find(out->used_cores.begin(), out->used_cores.end(), c) != out->used_cores.end()) continue;
    out->used_cores.push_back(static_cast<std::uint32_t>(c));
    for (std::size_t i = 0; i < remainder; ++i) out->pcpus.push_back(cores.threads[cores.spans[c].first + i]);
    return true;
  }
  return false;
}

// The first `reserve` free pCPUs left after the pinning, visiting cores in `order`: isolate
// skips every core the pinning touches, otherwise only the pinned threads themselves.
// `whole_threads`: only cores with that many free threads (0: any).
bool reserve_cpus(const FreeCores& cores, const Choice& choice, std::uint32_t reserve, bool isolate,
                  const std::vector<std::size_t>& order, CpuSet* out, std::uint32_t whole_threads = 0) {
  *out = CpuSet{};
  if (reserve == 0) return true;
  for (std::size_t c : order) {
    if (out->size() >= reserve) break;
    const bool touched = std::find(choice.used_cores.begin(), choice.used_cores.end(), c) != choice.used_cores.end();
    if (isolate && touched) continue;
    if (cores.size(c) < whole_threads) continue;
    for (std::uint32_t i = cores.spans[c].first; i < cores.spans[c].second && out->size() < reserve; ++i) {
      const std::uint32_t cpu = cores.threads[i];
      if (!touched || std::find(choice.pcpus.begin(), choice.pcpus.end(), cpu) == choice.pcpus.end()) out->insert(cpu);
    }
  }
  return out->size() == reserve;
}

// The free dedicated pCPUs of `domain` in `cell`.
std::size_t free_in(const HostCell& cell, const CpuSet& domain) {
  return domain.intersected(cell.dedicated_cpus).count_minus(cell.usage.pinned_cpus);
}

// The pinning on `cell` restricted to the pCPUs of `domains` (the same rules within them).
std::optional<CpuPinning> pin_within(const HostCell& cell, const std::vector<const CpuSet*>& domains,
                                     const CpuSet& vcpus, ThreadPolicy policy, std::uint32_t reserve,
                                     bool whole_core_emulator) {
  CpuSet within;
  for (const CpuSet* domain : domains) within.unite_with(*domain);
  HostCell narrowed = cell;
  narrowed.cache_domains.clear();
  narrowed.dedicated_cpus = cell.dedicated_cpus.intersected(within);
  narrowed.shared_cpus = cell.shared_cpus.intersected(within);
  return pin_dedicated_cpus(narrowed, vcpus, policy, reserve, nullptr, PinningStyle::Compact, whole_core_emulator);
}

// Compact pinning on a cell of several L3 cache domains: into one domain when one holds it (the
// tightest, so that the others stay whole), else into as few as hold it (the fullest first, the
// last one the tightest that holds the rest). nullopt when no such choice pins (a thread policy
// that the domains' free cores cannot meet): the caller pins over the whole cell.
std::optional<CpuPinning> pin_in_fewest_cache_domains(const HostCell& cell, const CpuSet& vcpus, ThreadPolicy policy,
                                                      std::uint32_t reserve, bool whole_core_emulator) {
  const std::size_t need = vcpus.size() + reserve;
  std::vector<std::pair<std::size_t, const CpuSet*>> by_free;  // free pCPUs, domain
  for (const auto& domain : cell.cache_domains) by_free.emplace_back(free_in(cell, domain), &domain);
  std::stable_sort(by_free.begin(), by_free.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [free, domain] : by_free) {  // tightest first
    if (free < need) continue;
    if (auto pinned = pin_within(cell, {domain}, vcpus, policy, reserve, whole_core_emulator)) return pinned;
  }
  // Several domains: the fullest until the rest fits in one, then the tightest that holds the rest.
  std::vector<const CpuSet*> chosen;
  std::size_t have = 0;
  std::vector<bool> taken(by_free.size(), false);
  while (have < need) {
    const std::size_t rest = need - have;
    std::size_t pick = by_free.size();
    for (std::size_t i = 0; i < by_free.size(); ++i) {  // tightest that holds the rest
      if (!taken[i] && by_free[i].first >= rest) {
        pick = i;
        break;
      }
    }
    if (pick == by_free.size()) {  // none holds the rest: the fullest left
      for (std::size_t i = by_free.size(); i-- > 0;) {
        if (!taken[i] && by_free[i].first > 0) {
          pick = i;
          break;
        }
      }
    }
    if (pick == by_free.size()) return std::nullopt;
    taken[pick] = true;
    chosen.push_back(by_free[pick].second);
    have += by_free[pick].first;
  }
  if (chosen.size() < 2) return std::nullopt;  // one domain was tried above
  return pin_within(cell, chosen, vcpus, policy, reserve, whole_core_emulator);
}

}  // namespace

std::vector<CpuSet> sibling_groups(const HostCell& cell) {
  if (!cell.siblings.empty()) return cell.siblings;
  std::vector<CpuSet> groups;
  for (auto cpu : cell.cpus.united(cell.dedicated_cpus)) groups.push_back(CpuSet{cpu});
  return groups;
}

std::optional<CpuPinning> pin_dedicated_cpus(const HostCell& cell, const CpuSet& vcpus, ThreadPolicy policy,
                                             std::uint32_t reserve, std::string* why, PinningStyle style,
                                             bool whole_core_emulator) {
  const std::size_t wanted = vcpus.size();
  auto fail = [&](auto&& reason) -> std::optional<CpuPinning> {
    if (why) *why = reason();
    return std::nullopt;
  };
  auto name = [&] { return "host cell " + std::to_string(cell.id); };
  auto asked = [&] { return count_of(wanted, "dedicated vCPU") + (reserve ? " + 1 emulator pCPU" : ""); };
  // Only a mixed guest's cell can have none: hw:cpu_dedicated_mask left it only shared vCPUs.
  if (wanted == 0) {
    return fail([] {
      return std::string("has no dedicated vCPU, and Nova pins a mixed guest's cells only where each has one; "
                         "no host takes this request, so give every guest cell a vCPU of hw:cpu_dedicated_mask");
    });
  }
  if (style == PinningStyle::Compact && cell.cache_domains.size() > 1) {
    if (auto within = pin_in_fewest_cache_domains(cell, vcpus, policy, reserve, whole_core_emulator)) return within;
  }

  // Sibling groups as the host reports them; each CPU alone when it reports none.
  std::vector<CpuSet> fallback;
  if (cell.siblings.empty()) fallback = sibling_groups(cell);
  const std::vector<CpuSet>& groups = cell.siblings.empty() ? fallback : cell.siblings;
  std::uint32_t threads_per_core = 1;
  for (const auto& g : groups) threads_per_core = std::max(threads_per_core, static_cast<std::uint32_t>(g.size()));
  thread_local PinningScratch scratch;
  FreeCores& cores = scratch.cores;
  cores.threads.clear();
  cores.spans.clear();
  const CpuSet free = cell.dedicated_cpus.minus(cell.usage.pinned_cpus);  // words, no heap below 256 CPUs
  for (const auto& g : groups) {
    const auto begin = static_cast<std::uint32_t>(cores.threads.size());
    for (auto cpu : g) {
      if (free.contains(cpu)) cores.threads.push_back(cpu);
    }
    const auto end = static_cast<std::uint32_t>(cores.threads.size());
    if (end > begin) cores.spans.emplace_back(begin, end);
  }
  auto result = [&](const Choice& choice, CpuSet reserved) {
    CpuPinning out;
    out.pinning.reserve(wanted);
    std::size_t i = 0;
    for (auto v : vcpus) out.pinning.emplace_back(v, choice.pcpus[i++]);
    out.reserved = std::move(reserved);
    return out;
  };
  Choice& choice = scratch.choice;
  CpuSet reserved;
  std::vector<std::size_t>& order = scratch.order;
  visit_order(cores, style, order);

  if (policy == ThreadPolicy::Isolate) {
    if (threads_per_core != 1 && cell.dedicated_cpus != cell.shared_cpus) {
      return fail([&] {
        return "thread policy isolate on an SMT host needs the same shared and dedicated CPU sets; " + name() +
               " has them apart";
      });
    }
    // One thread of each fully free core.
    FreeCores& whole = scratch.whole;
    whole.spans.clear();
    for (std::size_t c = 0; c < cores.spans.size(); ++c) {
      if (cores.size(c) == threads_per_core) whole.spans.push_back(cores.spans[c]);
    }
    whole.threads = cores.threads;
    std::vector<std::size_t>& whole_order = scratch.whole_order;
    whole_order.resize(whole.spans.size());
    for (std::size_t c = 0; c < whole_order.size(); ++c) whole_order[c] = c;
    if (!take_threads(whole, 1, wanted, whole_order, &choice)) {
      return fail([&] {
        return "needs " + asked() + " with isolated threads, " + name() + " has " + std::to_string(whole.spans.size()) +
               " fully free cores of " + std::to_string(threads_per_core) + " threads";
      });
    }
    // The cores used, as indexes of `cores`, for the emulator reservation.
    for (auto& c : choice.used_cores) {
      const auto span = whole.spans[c];
      c = static_cast<std::uint32_t>(std::find(cores.spans.begin(), cores.spans.end(), span) - cores.spans.begin());
    }
    // Nova reserves the emulator's pCPU on any core the pinning left alone and then holds its
    // siblings too, even one another guest holds; a real host (whole_core_emulator) takes a core
    // with every thread free, so that the siblings it holds are its own.
    if (!reserve_cpus(cores, choice, reserve, true, order, &reserved, whole_core_emulator ? threads_per_core : 0)) {
      return fail([&] {
        return "needs " + asked() + " with isolated threads, " + name() +
               " has no free pCPU left for the emulator off the pinned cores";
      });
    }
    CpuPinning pinned = result(choice, std::move(reserved));
    CpuSet used = pinned.reserved;
    for (const auto& [vcpu, pcpu] : pinned.pinning) used.insert(pcpu);
    for (const auto& core : groups) {
      if (core.intersects(used)) pinned.isolated = pinned.isolated.united(core.minus(used).minus(cell.usage.pinned_cpus));
    }
    return pinned;
  }

  const bool require = policy == ThreadPolicy::Require;
  if (require && threads_per_core <= 1) {
    return fail([&] {
      return "thread policy require needs SMT cores (two or more threads each), " + name() +
             " has one thread per core among the pCPUs the guest may use";
    });
  }
  // Whole cores first, then cores with fewer free threads (never lone threads under require).
  bool pinned = false;
  bool have_reserve = false;
  if (style == PinningStyle::Compact && !require && threads_per_core > 1) {
    pinned = take_compact(cores, threads_per_core, wanted, order, &choice);
    have_reserve = pinned && reserve_cpus(cores, choice, reserve, false, order, &reserved);
  }
  for (std::uint32_t t = threads_per_core; t >= 1 && !(pinned && have_reserve); --t) {
    if (require && t <= 1) break;
    if (cores.count_with_at_least(t) == 0) continue;
    pinned = take_threads(cores, t, wanted, order, &choice);
    have_reserve = pinned && reserve_cpus(cores, choice, reserve, false, order, &reserved);
  }
  if (!require && !pinned && cores.threads.size() >= wanted) {
    // Every free pCPU on its own, in sibling order.
    FreeCores flat;
    for (std::size_t c : order) {
      for (std::uint32_t i = cores.spans[c].first; i < cores.spans[c].second; ++i) flat.threads.push_back(cores.threads[i]);
    }
    std::vector<std::size_t> flat_order(flat.threads.size());
    for (std::uint32_t i = 0; i < flat.threads.size(); ++i) {
      flat.spans.emplace_back(i, i + 1);
      flat_order[i] = i;
    }
    pinned = take_threads(flat, 1, wanted, flat_order, &choice);
    Choice as_cores;
    as_cores.pcpus = choice.pcpus;
    for (std::size_t c = 0; c < cores.spans.size(); ++c) as_cores.used_cores.push_back(static_cast<std::uint32_t>(c));
    have_reserve = reserve_cpus(cores, as_cores, reserve, false, order, &reserved);
  }
  if (!pinned || !have_reserve) {
    return fail([&] {
      std::size_t paired = 0;
      for (std::size_t c = 0; c < cores.spans.size(); ++c) paired += cores.size(c) >= 2 ? cores.size(c) : 0;
      if (require) {
        return "needs " + asked() + " on sibling threads, " + name() + " has " + std::to_string(paired) +
               " free pCPUs on cores with two or more free threads";
      }
      return "needs " + asked() + ", " + name() + " has " + std::to_string(cores.threads.size()) +
             " free pinnable pCPUs";
    });
  }
  return result(choice, std::move(reserved));
}

}  // namespace numaplace

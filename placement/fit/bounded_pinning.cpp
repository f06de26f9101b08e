// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/fit/bounded_pinning.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

namespace numaplace {
namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// A maximum matching of items onto slots by augmenting paths (Kuhn), each item trying its slots in
// the order given: slot_of[i] is item i's slot, kNone when no matching places it.
class SlotMatching {
 public:
  SlotMatching(const std::vector<std::vector<std::size_t>>& allowed, std::size_t slots)
      : allowed_(allowed), owner_(slots, kNone), slot_of_(allowed.size(), kNone) {
    for (std::size_t item = 0; item < allowed_.size(); ++item) {
      seen_.assign(slots, false);
      place(item);
    }
  }
  const std::vector<std::size_t>& slot_of() const { return slot_of_; }
  std::size_t first_unplaced() const {
    for (std::size_t item = 0; item < slot_of_.size(); ++item) {
      if (slot_of_[item] == kNone) return item;
    }
    return kNone;
  }

 private:
  bool place(std::size_t item) {
    for (std::size_t slot : allowed_[item]) {
      if (seen_[slot]) continue;
      seen_[slot] = true;
      if (owner_[slot] == kNone || place(owner_[slot])) {
        owner_[slot] = item;
        slot_of_[item] = slot;
        return true;
      }
    }
    return false;
  }

  const std::vector<std::vector<std::size_t>>& allowed_;
  std::vector<std::size_t> owner_;
  std::vector<std::size_t> slot_of_;
  std::vector<bool> seen_;
};

const CpuSet* bound_of(const std::map<std::uint32_t, CpuSet>& bounds, std::uint32_t vcpu) {
  auto found = bounds.find(vcpu);
  return found == bounds.end() ? nullptr : &found->second;
}

// The same pCPUs handed to the vCPUs again so that each lies in its vCPU's bound, each vCPU
// keeping its own pCPU where it may; nullopt when no such handing exists.
std::optional<CpuPinning> hand_out_again(const CpuPinning& plain, const std::map<std::uint32_t, CpuSet>& bounds) {
  const std::size_t n = plain.pinning.size();
  std::vector<std::vector<std::size_t>> allowed(n);
  for (std::size_t i = 0; i < n; ++i) {
    const CpuSet* bound = bound_of(bounds, plain.pinning[i].first);
    if (bound == nullptr || bound->contains(plain.pinning[i].second)) allowed[i].push_back(i);
    for (std::size_t j = 0; j < n; ++j) {
      if (j != i && (bound == nullptr || bound->contains(plain.pinning[j].second))) allowed[i].push_back(j);
    }
  }
  SlotMatching matching(allowed, n);
  if (matching.first_unplaced() != kNone) return std::nullopt;
  CpuPinning out = plain;
  for (std::size_t i = 0; i < n; ++i) out.pinning[i].second = plain.pinning[matching.slot_of()[i]].second;
  return out;
}

// "<head>host cell N has none of them to pin" or "... has them (X) all pinned by guests" when no
// pCPU of `bound` is free in the cell at all; otherwise "<head>host cell N has them free (X)", to
// which the caller adds why those were out of reach.
std::string bound_reason(const HostCell& cell, const std::string& head, const CpuSet& bound, const CpuSet& free,
                         bool* some_free) {
  const std::string cell_name = "host cell " + std::to_string(cell.id);
  const CpuSet here = bound.intersected(cell.dedicated_cpus);
  const CpuSet free_here = here.intersected(free);
  *some_free = !free_here.empty();
  if (here.empty()) return head + cell_name + " has none of them to pin";
  if (free_here.empty()) return head + cell_name + " has them (" + to_cpu_list(here) + ") all pinned by guests";
  return head + cell_name + " has them free (" + to_cpu_list(free_here) + ")";
}

std::string pcpus_text(const CpuSet& bound) { return bound.empty() ? "(none on this host)" : to_cpu_list(bound); }

// Why bounded vCPU `vcpu` found no pCPU: its bound misses the cell, is pinned by guests, is free only
// where the thread policy may not pin, or is wanted by other bounded vCPUs.
std::string unplaced_reason(const HostCell& cell, std::uint32_t vcpu, const CpuSet& bound, const CpuSet& free,
                            ThreadPolicy policy) {
  bool some_free = false;
  const std::string reason = bound_reason(cell, "needs dedicated vCPU " + std::to_string(vcpu) + " on one of pCPUs " +
                                                    pcpus_text(bound) + " (where the domain lets it run), ",
                                          bound, free, &some_free);
  if (!some_free) return reason;
  if (policy == ThreadPolicy::Isolate) {
    return reason + " only on cores that are not fully free or that other bounded vCPUs take, and thread policy "
                    "isolate gives each vCPU a fully free core";
  }
  if (policy == ThreadPolicy::Require) {
    return reason + " only on cores with fewer than two free threads or taken by other bounded vCPUs, and thread "
                    "policy require pins on sibling threads";
  }
  return reason + " but other bounded vCPUs need them";
}

// Why the bounded emulator found no pCPU: its bound misses the cell, is pinned by guests, or is
// free only where the vCPUs or the thread policy leave it none.
std::string unplaced_emulator_reason(const HostCell& cell, const CpuSet& bound, const CpuSet& free, bool isolate) {
  bool some_free = false;
  const std::string reason = bound_reason(cell, "needs the emulator's isolated pCPU on one of pCPUs " +
                                                    pcpus_text(bound) + " (where the domain lets the emulator run), ",
                                          bound, free, &some_free);
  if (!some_free) return reason;
  return reason + " only where bounded vCPUs need them" + (isolate ? ", or on cores that are not fully free" : "");
}

}  // namespace

std::optional<CpuPinning> pin_dedicated_cpus_within(const HostCell& cell, const CpuSet& vcpus,
                                                    const std::map<std::uint32_t, CpuSet>& bounds,
                                                    const CpuSet* emulator_bound, ThreadPolicy policy,
                                                    std::uint32_t reserve, std::string* why, PinningStyle style,
                                                    bool whole_core_emulator) {
  auto plain = pin_dedicated_cpus(cell, vcpus, policy, reserve, why, style, whole_core_emulator);
  if (!plain) return plain;
  std::vector<std::uint32_t> bounded;
  for (auto v : vcpus) {
    if (bound_of(bounds, v) != nullptr) bounded.push_back(v);
  }
  const bool emulator_bounded = reserve > 0 && emulator_bound != nullptr;
  const bool emulator_kept = !emulator_bounded || plain->reserved.is_subset_of(*emulator_bound);
  if (bounded.empty() && emulator_kept) return plain;
  if (emulator_kept) {
    if (auto again = hand_out_again(*plain, bounds)) return again;
  }

  // The bounded vCPUs (and a bounded emulator, the last item) first, each onto a slot: a core with
  // a free thread (isolate) or a free pCPU, that its bound meets and the thread policy allows; the
  // plain pinning's pCPUs tried first.
  const std::vector<CpuSet> groups = sibling_groups(cell);
  std::size_t threads_per_core = 1;
  for (const auto& g : groups) threads_per_core = std::max(threads_per_core, g.size());
  const CpuSet free = cell.dedicated_cpus.minus(cell.usage.pinned_cpus);
  const bool isolate = policy == ThreadPolicy::Isolate;
  const std::size_t vcpu_least_free = isolate ? threads_per_core : policy == ThreadPolicy::Require ? 2 : 1;
  const std::size_t emulator_least_free = isolate && whole_core_emulator ? threads_per_core : 1;
  CpuSet plain_cpus = plain->reserved;
  for (const auto& [v, p] : plain->pinning) plain_cpus.insert(p);
  struct Slot {
    CpuSet cpus;             // isolate: the core's free threads; otherwise one free pCPU
    std::size_t core_free;  // free threads of its core
  };
  std::vector<Slot> slots;
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& g : groups) {
      const CpuSet free_threads = g.intersected(free);
      if (free_threads.empty()) continue;
      if (isolate) {
        if (free_threads.intersects(plain_cpus) == (pass == 0)) slots.push_back({free_threads, free_threads.size()});
        continue;
      }
      for (auto cpu : free_threads) {
        if (plain_cpus.contains(cpu) == (pass == 0)) slots.push_back({CpuSet{cpu}, free_threads.size()});
      }
    }
  }
  const std::size_t items = bounded.size() + (emulator_bounded ? 1 : 0);
  const auto item_bound = [&](std::size_t item) -> const CpuSet& {
    return item < bounded.size() ? *bound_of(bounds, bounded[item]) : *emulator_bound;
  };
  std::vector<std::vector<std::size_t>> allowed(items);
  for (std::size_t item = 0; item < items; ++item) {
    const std::size_t least_free = item < bounded.size() ? vcpu_least_free : emulator_least_free;
    for (std::size_t s = 0; s < slots.size(); ++s) {
      if (slots[s].core_free >= least_free && slots[s].cpus.intersects(item_bound(item))) allowed[item].push_back(s);
    }
  }
  SlotMatching matching(allowed, slots.size());
  if (const std::size_t missing = matching.first_unplaced(); missing != kNone) {
    if (why) {
      *why = missing < bounded.size() ? unplaced_reason(cell, bounded[missing], item_bound(missing), free, policy)
                                      : unplaced_emulator_reason(cell, *emulator_bound, free, isolate);
    }
    return std::nullopt;
  }
  CpuPinning out;
  HostCell rest_cell = cell;  // the cell with the matched pCPUs (isolate: their cores) taken
  for (std::size_t item = 0; item < items; ++item) {
    const CpuSet& slot = slots[matching.slot_of()[item]].cpus;
    const std::uint32_t pcpu = slot.intersected(item_bound(item)).first();
    if (item < bounded.size()) {
      out.pinning.emplace_back(bounded[item], pcpu);
    } else {
      out.reserved.insert(pcpu);
    }
    rest_cell.usage.pinned_cpus.unite_with(isolate ? slot : CpuSet{pcpu});
  }
  const CpuSet rest = [&] {
    CpuSet r = vcpus;
    for (auto v : bounded) r.erase(v);
    return r;
  }();
  const std::uint32_t rest_reserve = emulator_bounded ? 0 : reserve;
  const auto matched_text = [&] {
    CpuSet taken = out.reserved;
    for (const auto& [v, p] : out.pinning) taken.insert(p);
    return "with its bounded threads on pCPUs " + to_cpu_list(taken) + ", ";
  };
  if (!rest.empty()) {
    std::string rest_why;
    auto rest_pinning =
        pin_dedicated_cpus(rest_cell, rest, policy, rest_reserve, &rest_why, style, whole_core_emulator);
    if (!rest_pinning) {
      if (why) *why = matched_text() + "the other vCPUs: " + rest_why;
      return std::nullopt;
    }
    for (const auto& pair : rest_pinning->pinning) out.pinning.push_back(pair);
    if (rest_reserve > 0) out.reserved = std::move(rest_pinning->reserved);
  } else if (rest_reserve > 0) {
    // The emulator's pCPU on what is left (isolate: off the cores the vCPUs took, on a fully free
    // core where whole_core_emulator asks for one).
    const CpuSet left = rest_cell.dedicated_cpus.minus(rest_cell.usage.pinned_cpus);
    for (const auto& g : groups) {
      const CpuSet free_threads = g.intersected(left);
      if (free_threads.empty()) continue;
      if (isolate && whole_core_emulator && free_threads.size() < threads_per_core) continue;
      out.reserved.insert(free_threads.first());
      break;
    }
    if (out.reserved.empty()) {
      if (why) *why = matched_text() + "host cell " + std::to_string(cell.id) + " has no free pCPU left for the emulator";
      return std::nullopt;
    }
  }
  std::sort(out.pinning.begin(), out.pinning.end());
  if (isolate) {
    CpuSet used = out.reserved;
    for (const auto& [v, p] : out.pinning) used.insert(p);
    for (const auto& core : groups) {
      if (core.intersects(used)) out.isolated.unite_with(core.minus(used).minus(cell.usage.pinned_cpus));
    }
  }
  return out;
}

std::optional<CpuPinning> pin_dedicated_cpus_near_emulator(const HostCell& cell, const CpuSet& vcpus,
                                                           const std::map<std::uint32_t, CpuSet>& bounds,
                                                           const CpuSet& emulator_vcpus, const CpuSet& emulator_bound,
                                                           ThreadPolicy policy, std::string* why, PinningStyle style,
                                                           bool whole_core_emulator) {
  auto plain = pin_dedicated_cpus_within(cell, vcpus, bounds, nullptr, policy, 0, why, style, whole_core_emulator);
  if (!plain) return plain;
  const auto emulator_reached = [&](const CpuPinning& pinning) {
    return std::any_of(pinning.pinning.begin(), pinning.pinning.end(), [&](const auto& pair) {
      return emulator_vcpus.contains(pair.first) && emulator_bound.contains(pair.second);
    });
  };
  if (emulator_reached(*plain)) return plain;
  for (auto v : emulator_vcpus) {
    if (!vcpus.contains(v)) continue;
    std::map<std::uint32_t, CpuSet> narrowed = bounds;
    const CpuSet* own = bound_of(bounds, v);
    narrowed[v] = own != nullptr ? own->intersected(emulator_bound) : emulator_bound;
    if (narrowed[v].empty()) continue;
    if (auto near = pin_dedicated_cpus_within(cell, vcpus, narrowed, nullptr, policy, 0, nullptr, style,
                                              whole_core_emulator)) {
      return near;
    }
  }
  if (why) {
    *why = "needs one of vCPUs " + to_cpu_list(emulator_vcpus.intersected(vcpus)) + " on one of pCPUs " +
           to_cpu_list(emulator_bound) + " (where the domain lets the emulator run, which runs on the guest's own "
           "pCPUs), host cell " + std::to_string(cell.id) + " can pin none of them there";
  }
  return std::nullopt;
}

}  // namespace numaplace

// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/fit/cell_fit.h"

#include <algorithm>
#include <string>

#include "placement/fit/bounded_pinning.h"
#include "placement/fit/pinning_check.h"
#include "placement/model/fit_demands.h"
#include "placement/model/count_words.h"
#include "placement/request/page_size.h"

namespace numaplace {
namespace {

std::string mib(std::uint64_t kib) {
  if (kib % 1024 == 0) return std::to_string(kib / 1024) + " MiB";
  return std::to_string(kib) + " KiB";
}

// "has 1024 MiB free (2048 MiB in use (...)<detail>)", or where what is in use is already past the
// limit (floating guests overcommit a cell's memory; a RAM ratio may have been lowered since) "has
// none free: 97280 MiB in use (...), 31744 MiB past <limit><detail>": no negative amounts.
std::string memory_room_text(double room_kib, std::uint64_t in_use_kib, const std::string& word,
                             const std::string& limit, const std::string& detail) {
  const std::string in_use = mib(in_use_kib) + " in use (by guests, or reserved for the host)";
  if (room_kib >= 0) return "has " + mib(static_cast<std::uint64_t>(room_kib)) + " " + word + " (" + in_use + detail + ")";
  return "has none " + word + ": " + in_use + ", " + mib(static_cast<std::uint64_t>(-room_kib)) + " past " + limit + detail;
}

// "no CPUs", "1 CPU", "6 CPUs".
std::string cpus_text(std::size_t cpus) { return cpus == 0 ? std::string("no CPUs") : count_of(cpus, "CPU"); }

std::string format_ratio(double value) {
  std::string text = std::to_string(value);
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

// A misfit, with its reason made only when one is wanted (a verdict-only fit checks every pair of
// thousands of hosts, and the texts were most of what it allocated).
template <typename MakeReason>
CellFit misfit(bool with_reason, MakeReason&& make_reason) {
  CellFit out;
  if (with_reason) out.reason = make_reason();
  return out;
}

}  // namespace

bool reserves_emulator_cpu(const GuestTopology& guest, const GuestCell& guest_cell) {
  return guest.emulator_threads_policy == EmulatorThreadsPolicy::Isolate && !guest.cells.empty() &&
         guest.cells.front().id == guest_cell.id;
}

namespace {

// fit_cell, and with `build_pinning` false fit_cell_decision: the same checks in the same order.
CellFit assess_cell(const HostTopology& host, const HostCell& cell, const GuestTopology& guest,
                    const GuestCell& guest_cell, bool reserve_emulator, PinningStyle style, bool build_pinning,
                    bool with_reason) {
  CellFit out;
  // Reasons are only written on failure: the search checks every pair.
  const auto name_of = [](const HostCell& c) { return "host cell " + std::to_string(c.id); };
  const std::uint64_t want_kib = guest_cell.memory_kib;
  const bool pinned = guest.cpu_policy == CpuPolicy::Dedicated || guest.cpu_policy == CpuPolicy::Mixed;
  const bool floating = guest.cpu_policy != CpuPolicy::Dedicated;
  const std::size_t reserve = reserve_emulator ? 1 : 0;
  const std::size_t dedicated = guest_cell.dedicated_cpus.size() + reserve;
  const std::size_t shared_vcpus = guest_cell.cpus.size() - guest_cell.dedicated_cpus.size();
  const auto dedicated_text_of = [&] {
    return count_of(guest_cell.dedicated_cpus.size(), "dedicated vCPU") + (reserve ? " + 1 emulator pCPU" : "");
  };

  // A requested page size is a choice among the cell's pools (page_size.h), made first as Nova does.
  if (guest_cell.pagesize != kPageSizeNone) {
    std::string why;
    auto size = choose_page_size(cell, guest_cell.pagesize, want_kib, &why);
    if (!size) return misfit(with_reason, [&] { return std::move(why); });
    out.pagesize_kib = *size;
  }

  // Stage 1, against the cell's totals: memory (without a page size: the smallest pages' total,
  // or the cell's memory when it reports no pages; memory that is not a whole number of small
  // pages takes one more, as libvirt rounds up), dedicated vCPUs, shared vCPUs.
  const PagePool* smallest = smallest_pool(cell);
  if (smallest != nullptr && smallest->size_kib == 0) {
    return misfit(with_reason, [&] {
      return name_of(cell) + " reports pages of 0 KiB, which no host has; its memory cannot be counted";
    });
  }
  const std::uint64_t small_kib = small_page_kib(cell, smallest);
  Demands totals;
  if (guest_cell.pagesize == kPageSizeNone) {
    // A cell that lists no small pages: Nova's check of its smallest listed pages also needs the
    // memory to be a whole number of them (can_fit_pagesize), rather than one page more.
    if (smallest != nullptr && smallest->size_kib > 4 && want_kib % smallest->size_kib != 0) {
      return misfit(with_reason, [&] {
        return "needs " + mib(want_kib) + " of memory, not a whole number of the " +
            std::to_string(smallest->size_kib) + " KiB pages, the smallest " + name_of(cell) + " lists";
      });
    }
    if (smallest != nullptr) {
      const std::uint64_t rounded_kib = (want_kib + smallest->size_kib - 1) / smallest->size_kib * smallest->size_kib;
      totals.add("memory", static_cast<double>(rounded_kib), static_cast<double>(small_kib));
    } else {
      totals.add("memory", static_cast<double>(want_kib), static_cast<double>(cell.memory_kib));
    }
  }
  if (pinned) totals.add("dedicated-cpus", static_cast<double>(dedicated), static_cast<double>(cell.dedicated_cpus.size()));
  if (floating) totals.add("shared-vcpus", static_cast<double>(shared_vcpus), static_cast<double>(cell.shared_cpus.size()));
  if (const Demand* short_of = first_shortfall(totals)) {
    const std::string which = short_of->dimension;
    if (which == "memory" && smallest != nullptr) {
      return misfit(with_reason, [&] {
        return "needs " + mib(want_kib) + " of memory, " + name_of(cell) + " has " +
            mib(small_kib) + " in " + std::to_string(smallest->size_kib) +
            " KiB pages in all";
      });
    }
    if (which == "memory") {
      return misfit(with_reason, [&] {
        return "needs " + mib(want_kib) + " of memory, " + name_of(cell) + " has " + mib(cell.memory_kib) + " in all";
      });
    }
    if (which == "dedicated-cpus") {
      return misfit(with_reason, [&] {
        return "needs " + dedicated_text_of() + ", " + name_of(cell) + " has " +
            (cell.dedicated_cpus.empty() ? std::string("no dedicated CPUs")
                                         : count_of(cell.dedicated_cpus.size(), "dedicated CPU") + " in all");
      });
    }
    return misfit(with_reason, [&] {
      return "needs " + count_of(shared_vcpus, "shared vCPU") + ", " + name_of(cell) + " has " +
          cpus_text(cell.shared_cpus.size()) + " for shared guests";
    });
  }

  // Stage 2, the dedicated part against what is free now: pCPUs not pinned by guests, and
  // memory without any ratio (it may already be overcommitted by floating guests: negative). On a
  // real host (Exclusive) small-page memory comes from the small pages only, which the huge page
  // pools are carved out of; Nova counts the cell's whole memory.
  const bool small_pages_only =
      host.accounting == Accounting::Exclusive && smallest != nullptr && guest_cell.pagesize == kPageSizeNone;
  const double free_memory =
      static_cast<double>(small_pages_only ? small_kib : cell.memory_kib) -
      static_cast<double>(cell.usage.memory_kib);
  if (pinned) {
    const std::size_t pinned_here = cell.dedicated_cpus.count_common(cell.usage.pinned_cpus);
    const std::size_t free = cell.dedicated_cpus.size() - pinned_here;
    Demands free_now;
    free_now.add("dedicated-cpus", static_cast<double>(dedicated), static_cast<double>(free));
    free_now.add("memory", static_cast<double>(want_kib), free_memory);
    if (const Demand* short_of = first_shortfall(free_now)) {
      if (std::string(short_of->dimension) == "dedicated-cpus") {
        return misfit(with_reason, [&] {
          return "needs " + dedicated_text_of() + ", " + name_of(cell) + " has " + std::to_string(free) +
              " free of " + std::to_string(cell.dedicated_cpus.size()) + " (" + std::to_string(pinned_here) +
              " pinned by guests)";
        });
      }
      return misfit(with_reason, [&] {
        return "needs " + mib(want_kib) + " of memory for a pinned cell, " + name_of(cell) + " " +
            memory_room_text(free_memory, cell.usage.memory_kib, "free",
                             "its memory, which floating guests may overcommit and a pinned cell may not", "");
      });
    }
  }
  // On a real host (Exclusive accounting) the pCPUs this cell takes leave the floating set: the
  // floating guests already here and the cell's own shared vCPUs run on what is left, within the
  // CPU ratio. Only how many are left matters below.
  const bool exclusive = host.accounting == Accounting::Exclusive;
  const CpuSet floating_here = exclusive ? floating_cpus_of(host, cell) : CpuSet{};
  std::size_t floating_left = exclusive ? floating_here.size() : cell.shared_cpus.size();
  if (pinned) {
    const auto reserve_count = static_cast<std::uint32_t>(reserve);
    std::optional<PinningCheck> check;
    const CpuSet* emulator_bound = reserve_count > 0 && guest.emulator_bound ? &*guest.emulator_bound : nullptr;
    // A dedicated guest of one cell without isolate runs its emulator on its (non-realtime) vCPUs'
    // pCPUs: one of them must lie in the emulator's bound. (Over several cells any cell may hold
    // it; check_pins decides there.)
    const CpuSet emulator_vcpus = guest.emulator_bound && reserve_count == 0 && guest.cells.size() == 1 &&
                                          guest.cpu_policy == CpuPolicy::Dedicated
                                      ? guest_cell.dedicated_cpus.minus(guest.realtime_cpus)
                                      : CpuSet{};
    // Counts cannot see the operator's bounds: with them, the pinning itself decides.
    if (!build_pinning && guest_cell.vcpu_bounds.empty() && emulator_bound == nullptr && emulator_vcpus.empty()) {
      check = check_dedicated_pinning(cell, guest_cell.dedicated_cpus.size(), guest.thread_policy, reserve_count,
                                      exclusive, exclusive ? &floating_here : nullptr);
    }
    if (!check || check->verdict != PinningCheck::Verdict::Fits) {
      // The pinning itself: asked for, undecided by counts, or the reason of a misfit.
      std::string why;
      auto pinning = emulator_vcpus.empty()
                         ? pin_dedicated_cpus_within(cell, guest_cell.dedicated_cpus, guest_cell.vcpu_bounds,
                                                     emulator_bound, guest.thread_policy, reserve_count, &why, style,
                                                     exclusive)
                         : pin_dedicated_cpus_near_emulator(cell, guest_cell.dedicated_cpus, guest_cell.vcpu_bounds,
                                                            emulator_vcpus, *guest.emulator_bound, guest.thread_policy,
                                                            &why, style, exclusive);
      if (!pinning) return misfit(with_reason, [&] { return std::move(why); });
      out.pinning = std::move(*pinning);
      if (exclusive) {
        CpuSet taken = out.pinning.reserved.united(out.pinning.isolated);
        for (const auto& [vcpu, pcpu] : out.pinning.pinning) taken.insert(pcpu);
        floating_left -= floating_here.count_common(taken);
      }
      if (!build_pinning) out.pinning = CpuPinning{};  // a decision carries no pinning
    } else if (exclusive) {
      floating_left -= check->taken_within;
    }
  }
  // The pinned part's memory is held within the RAM ratio too (stricter only below 1).
  if (exclusive && pinned) {
    const double load = cell.usage.shared_cpus + (floating ? static_cast<double>(shared_vcpus) : 0.0);
    const double room = static_cast<double>(floating_left) * host.ratio.cpu;
    if (load > 0 && (floating_left == 0 || (host.ratio.enforced && load > room))) {
      return misfit(with_reason, [&] {
        return "needs " + dedicated_text_of() + " of " + name_of(cell) + ", which would leave " +
            format_ratio(load) + (load == 1.0 ? " floating vCPU on " : " floating vCPUs on ") +
            count_of(floating_left, "CPU") + " not held by dedicated guests" +
            (floating_left == 0 ? std::string() : ", limit " + format_ratio(room) + " at CPU ratio " +
            format_ratio(host.ratio.cpu));
      });
    }
    if (host.ratio.enforced && host.ratio.ram < 1.0 &&
        static_cast<double>(cell.usage.memory_kib + want_kib) > static_cast<double>(cell.memory_kib) * host.ratio.ram) {
      return misfit(with_reason, [&] {
        return "needs " + mib(want_kib) + " of memory for a pinned cell, " + name_of(cell) + " " +
            memory_room_text(static_cast<double>(cell.memory_kib) * host.ratio.ram -
                                 static_cast<double>(cell.usage.memory_kib),
                             cell.usage.memory_kib, "left", "its memory x RAM ratio",
                             ", RAM ratio " + format_ratio(host.ratio.ram));
      });
    }
  }
  // A shared vCPU the operator bounded must be able to float somewhere within its bound.
  if (floating) {
    const CpuSet& floats_on = exclusive ? floating_here : cell.shared_cpus;
    for (const auto& entry : guest_cell.vcpu_bounds) {
      const std::uint32_t vcpu = entry.first;  // named, not bound: clang 14 cannot capture bindings
      const CpuSet& bound = entry.second;
      if (!guest_cell.cpus.contains(vcpu) || guest_cell.dedicated_cpus.contains(vcpu) || bound.intersects(floats_on)) {
        continue;
      }
      return misfit(with_reason, [&] {
        return "needs shared vCPU " + std::to_string(vcpu) + " to float within pCPUs " + to_cpu_list(bound) +
            " (where the domain lets it run), " + name_of(cell) + " has none of them for shared guests";
      });
    }
  }
  if (exclusive && floating && floating_left < shared_vcpus) {
    return misfit(with_reason, [&] {
      return "needs " + count_of(shared_vcpus, "shared vCPU") + ", " + name_of(cell) + " has " +
          cpus_text(floating_left) + " for shared guests not held by dedicated guests";
    });
  }

  // Stage 3, the floating part against the allocation ratios: shared vCPU load within CPU
  // ratio x shared CPUs (Exclusive: those left to floating guests), memory within RAM ratio x cell
  // memory; none when the host sets no limits.
  if (floating && host.ratio.enforced) {
    const double cpu_limit = static_cast<double>(floating_left) * host.ratio.cpu;
    const double memory_limit = static_cast<double>(cell.memory_kib) * host.ratio.ram;
    Demands limits;
    limits.add("shared-vcpus", cell.usage.shared_cpus + static_cast<double>(shared_vcpus), cpu_limit);
    limits.add("memory", static_cast<double>(cell.usage.memory_kib) + static_cast<double>(want_kib), memory_limit);
    if (const Demand* short_of = first_shortfall(limits)) {
      if (std::string(short_of->dimension) == "shared-vcpus") {
        return misfit(with_reason, [&] {
          return "needs " + count_of(shared_vcpus, "shared vCPU") + ", " + name_of(cell) + " carries " +
              format_ratio(cell.usage.shared_cpus) + " vCPUs already, limit " + format_ratio(cpu_limit) + " (" +
              std::to_string(floating_left) + " CPUs x CPU ratio " + format_ratio(host.ratio.cpu) +
              ")";
        });
      }
      return misfit(with_reason, [&] {
        return "needs " + mib(want_kib) + " of memory, " + name_of(cell) + " " +
            memory_room_text(memory_limit - static_cast<double>(cell.usage.memory_kib), cell.usage.memory_kib,
                             "left", "its memory x RAM ratio", ", RAM ratio " + format_ratio(host.ratio.ram));
      });
    }
  }
  out.fits = true;
  return out;
}

}  // namespace

CellFit fit_cell(const HostTopology& host, const HostCell& cell, const GuestTopology& guest,
                 const GuestCell& guest_cell, bool reserve_emulator, PinningStyle style) {
  return assess_cell(host, cell, guest, guest_cell, reserve_emulator, style, true, true);
}

CellFit fit_cell_decision(const HostTopology& host, const HostCell& cell, const GuestTopology& guest,
                          const GuestCell& guest_cell, bool reserve_emulator, bool with_reason) {
  return assess_cell(host, cell, guest, guest_cell, reserve_emulator, PinningStyle::NovaOrder, false, with_reason);
}

}  // namespace numaplace

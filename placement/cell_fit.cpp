#include "placement/cell_fit.h"

#include <algorithm>

#include "placement/page_size.h"

namespace numaplace {
namespace {

std::string mib(std::uint64_t kib) {
  if (kib % 1024 == 0) return std::to_string(kib / 1024) + " MiB";
  return std::to_string(kib) + " KiB";
}

std::string signed_mib(double kib) {
  if (kib < 0) return "-" + mib(static_cast<std::uint64_t>(-kib));
  return mib(static_cast<std::uint64_t>(kib));
}

std::string format_ratio(double value) {
  std::string text = std::to_string(value);
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

CellFit misfit(std::string reason) {
  CellFit out;
  out.reason = std::move(reason);
  return out;
}

}  // namespace

bool reserves_emulator_cpu(const GuestTopology& guest, const GuestCell& guest_cell) {
  return guest.emulator_threads_policy == EmulatorThreadsPolicy::Isolate && !guest.cells.empty() &&
         guest.cells.front().id == guest_cell.id;
}

CellFit fit_cell(const HostTopology& host, const HostCell& cell, const GuestTopology& guest,
                 const GuestCell& guest_cell, bool reserve_emulator, PinningStyle style) {
  CellFit out;
  // Reasons are only written on failure: the search checks every pair.
  const auto name_of = [](const HostCell& c) { return "host cell " + std::to_string(c.id); };
  const std::uint64_t want_kib = guest_cell.memory_kib;

  // Memory.
  if (guest_cell.pagesize != kPageSizeNone) {
    std::string why;
    auto size = choose_page_size(cell, guest_cell.pagesize, want_kib, &why);
    if (!size) return misfit(why);
    out.pagesize_kib = *size;
  } else if (!cell.pages.empty()) {
    auto smallest = std::min_element(cell.pages.begin(), cell.pages.end(),
                                     [](const PagePool& a, const PagePool& b) { return a.size_kib < b.size_kib; });
    const std::uint64_t capacity = smallest->total * smallest->size_kib;
    // Memory that is not a whole number of small pages takes one more page (libvirt rounds up).
    const std::uint64_t rounded_kib = (want_kib + smallest->size_kib - 1) / smallest->size_kib * smallest->size_kib;
    if (rounded_kib > capacity) {
      return misfit("needs " + mib(want_kib) + " of memory, " + name_of(cell) + " has " + mib(capacity) + " in " +
                    std::to_string(smallest->size_kib) + " KiB pages in all");
    }
  } else if (want_kib > cell.memory_kib) {
    return misfit("needs " + mib(want_kib) + " of memory, " + name_of(cell) + " has " + mib(cell.memory_kib) + " in all");
  }

  const bool pinned = guest.cpu_policy == CpuPolicy::Dedicated || guest.cpu_policy == CpuPolicy::Mixed;
  const bool floating = guest.cpu_policy != CpuPolicy::Dedicated;
  const std::size_t reserve = reserve_emulator ? 1 : 0;
  const std::size_t dedicated = guest_cell.dedicated_cpus.size() + reserve;
  const std::size_t shared_vcpus = guest_cell.cpus.size() - guest_cell.dedicated_cpus.size();
  const auto dedicated_text_of = [&] {
    return std::to_string(guest_cell.dedicated_cpus.size()) + " dedicated vCPUs" + (reserve ? " + 1 emulator pCPU" : "");
  };

  // Size against the cell itself.
  if (pinned && dedicated > cell.dedicated_cpus.size()) {
    return misfit("needs " + dedicated_text_of() + ", " + name_of(cell) + " has " + std::to_string(cell.dedicated_cpus.size()) +
                  " dedicated CPUs in all");
  }
  if (floating && shared_vcpus > cell.shared_cpus.size()) {
    return misfit("needs " + std::to_string(shared_vcpus) + " shared vCPUs, " + name_of(cell) + " has " +
                  std::to_string(cell.shared_cpus.size()) + " CPUs for shared guests");
  }

  // Dedicated part.
  const double free_memory = static_cast<double>(cell.memory_kib) - static_cast<double>(cell.usage.memory_kib);
  if (pinned) {
    std::size_t pinned_here = 0;
    for (auto cpu : cell.usage.pinned_cpus) pinned_here += cell.dedicated_cpus.contains(cpu) ? 1 : 0;
    const std::size_t free = cell.dedicated_cpus.size() - pinned_here;
    if (dedicated > free) {
      return misfit("needs " + dedicated_text_of() + ", " + name_of(cell) + " has " + std::to_string(free) + " free of " +
                    std::to_string(cell.dedicated_cpus.size()) + " (" + std::to_string(pinned_here) +
                    " pinned by guests)");
    }
    if (static_cast<double>(want_kib) > free_memory) {
      return misfit("needs " + mib(want_kib) + " of memory for a pinned cell, " + name_of(cell) + " has " +
                    signed_mib(free_memory) + " free (" + mib(cell.usage.memory_kib) + " used by guests)");
    }
    std::string why;
    auto pinning = pin_dedicated_cpus(cell, guest_cell.dedicated_cpus, guest.thread_policy,
                                      static_cast<std::uint32_t>(reserve), &why, style);
    if (!pinning) return misfit(why);
    out.pinning = std::move(*pinning);
  }

  // Shared part.
  if (floating) {
    const double cpu_limit = static_cast<double>(cell.shared_cpus.size()) * host.ratio.cpu;
    if (cell.usage.shared_cpus + static_cast<double>(shared_vcpus) > cpu_limit) {
      return misfit("needs " + std::to_string(shared_vcpus) + " shared vCPUs, " + name_of(cell) + " carries " +
                    format_ratio(cell.usage.shared_cpus) + " vCPUs already, limit " + format_ratio(cpu_limit) + " (" +
                    std::to_string(cell.shared_cpus.size()) + " CPUs x CPU ratio " + format_ratio(host.ratio.cpu) + ")");
    }
    const double memory_limit = static_cast<double>(cell.memory_kib) * host.ratio.ram;
    if (static_cast<double>(cell.usage.memory_kib) + static_cast<double>(want_kib) > memory_limit) {
      return misfit("needs " + mib(want_kib) + " of memory, " + name_of(cell) + " has " +
                    signed_mib(memory_limit - static_cast<double>(cell.usage.memory_kib)) + " left (" +
                    mib(cell.usage.memory_kib) + " used by guests, RAM ratio " + format_ratio(host.ratio.ram) + ")");
    }
  }
  out.fits = true;
  return out;
}

}  // namespace numaplace

#include "placement/fit.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace numaplace {
namespace {

std::string mib(std::uint64_t kib) {
  if (kib % 1024 == 0) return std::to_string(kib / 1024) + " MiB";
  return std::to_string(kib) + " KiB";
}

std::string format_ratio(double value) {
  std::string text = std::to_string(value);
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

// Guest cells that can still be matched to distinct unused host cells (Kuhn's algorithm).
bool has_complete_matching(const std::vector<std::vector<bool>>& fits, std::size_t first_guest,
                           const std::vector<bool>& host_taken) {
  const std::size_t hosts = host_taken.size();
  std::vector<int> owner(hosts, -1);
  std::function<bool(std::size_t, std::vector<bool>&)> augment = [&](std::size_t g, std::vector<bool>& visited) {
    for (std::size_t h = 0; h < hosts; ++h) {
      if (host_taken[h] || !fits[g][h] || visited[h]) continue;
      visited[h] = true;
      if (owner[h] < 0 || augment(static_cast<std::size_t>(owner[h]), visited)) {
        owner[h] = static_cast<int>(g);
        return true;
      }
    }
    return false;
  };
  for (std::size_t g = first_guest; g < fits.size(); ++g) {
    std::vector<bool> visited(hosts, false);
    if (!augment(g, visited)) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> cell_misfit(const HostTopology& host, const HostCell& cell, const GuestTopology&,
                                       const GuestCell& guest_cell) {
  const std::uint64_t want_kib = guest_cell.memory_kib;
  // Memory: the cell on its own must be large enough, and usage stays within the RAM ratio.
  std::uint64_t capacity_kib = cell.memory_kib;
  if (!cell.pages.empty()) capacity_kib = cell.pages.front().total * cell.pages.front().size_kib;
  if (want_kib > capacity_kib) {
    return "needs " + mib(want_kib) + " of memory, host cell " + std::to_string(cell.id) + " has " +
           mib(capacity_kib) + " in all";
  }
  const double memory_limit = static_cast<double>(cell.memory_kib) * host.ratio.ram;
  if (static_cast<double>(cell.usage.memory_kib + want_kib) > memory_limit) {
    return "needs " + mib(want_kib) + " of memory, host cell " + std::to_string(cell.id) + " has " +
           mib(static_cast<std::uint64_t>(std::max(0.0, memory_limit - static_cast<double>(cell.usage.memory_kib)))) +
           " left (" + mib(cell.usage.memory_kib) + " used by guests, RAM ratio " + format_ratio(host.ratio.ram) + ")";
  }
  // Shared CPUs: no more vCPUs than the cell has CPUs, and load within the CPU ratio.
  const std::size_t vcpus = guest_cell.cpus.size();
  const std::size_t shared = cell.shared_cpus.size();
  if (vcpus > shared) {
    return "needs " + std::to_string(vcpus) + " vCPUs, host cell " + std::to_string(cell.id) + " has " +
           std::to_string(shared) + " CPUs for shared guests";
  }
  const double cpu_limit = static_cast<double>(shared) * host.ratio.cpu;
  if (cell.usage.shared_cpus + static_cast<double>(vcpus) > cpu_limit) {
    return "needs " + std::to_string(vcpus) + " vCPUs, host cell " + std::to_string(cell.id) + " carries " +
           format_ratio(cell.usage.shared_cpus) + " vCPUs already, limit " + format_ratio(cpu_limit) + " (" +
           std::to_string(shared) + " CPUs x CPU ratio " + format_ratio(host.ratio.cpu) + ")";
  }
  return std::nullopt;
}

std::vector<std::size_t> nova_host_cell_order(const HostTopology& host, const GuestTopology& guest,
                                              const FitOptions& options) {
  std::vector<std::size_t> order(host.cells.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (host.cells.size() <= guest.cells.size()) return order;  // Nova keeps host order then

  const bool pack = options.pack_host_cells;
  auto by = [&](auto key) {
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return pack ? key(host.cells[a]) < key(host.cells[b]) : key(host.cells[a]) > key(host.cells[b]);
    });
  };
  by([](const HostCell& c) { return static_cast<double>(c.memory_kib) - static_cast<double>(c.usage.memory_kib); });
  if (guest.cpu_policy == CpuPolicy::Dedicated || guest.cpu_policy == CpuPolicy::Mixed) {
    by([](const HostCell& c) { return static_cast<double>(c.free_dedicated_cpus().size()); });
  } else {
    by([](const HostCell& c) { return -c.usage.shared_cpus; });
  }
  // Free PCI devices per cell: most first when the guest asks for devices, fewest first otherwise.
  auto free_devices = [&](const HostCell& c) {
    double n = 0;
    for (const auto& dev : host.pci) n += (!dev.allocated && dev.numa_node && *dev.numa_node == c.id) ? 1 : 0;
    return n;
  };
  const bool wants_pci = false;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    double da = free_devices(host.cells[a]);
    double db = free_devices(host.cells[b]);
    return wants_pci ? da > db : da < db;
  });
  return order;
}

FitResult fit_guest(const HostTopology& host, const GuestTopology& guest, const FitOptions& options) {
  FitResult result;
  const std::size_t guests = guest.cells.size();
  const std::size_t hosts = host.cells.size();
  if (guests == 0) {
    result.summary = "the guest has no NUMA cells to place";
    return result;
  }
  if (guests > hosts) {
    result.summary = "the guest asks for " + std::to_string(guests) + " NUMA cells but the host has only " +
                     std::to_string(hosts) + "; each guest cell needs a host cell of its own";
    return result;
  }

  const std::vector<std::size_t> order = nova_host_cell_order(host, guest, options);
  // fits[g][p]: guest cell g fits the host cell at position p of `order`.
  std::vector<std::vector<bool>> fits(guests, std::vector<bool>(hosts, false));
  for (std::size_t g = 0; g < guests; ++g) {
    for (std::size_t p = 0; p < hosts; ++p) {
      const HostCell& cell = host.cells[order[p]];
      auto why = cell_misfit(host, cell, guest, guest.cells[g]);
      fits[g][p] = !why.has_value();
      if (why) result.rejections.push_back({guest.cells[g].id, cell.id, *why});
    }
  }

  std::vector<bool> taken(hosts, false);
  if (!has_complete_matching(fits, 0, taken)) {
    result.summary = "no assignment of guest cells to distinct host cells fits";
    return result;
  }
  // The lexicographically first assignment over `order` is Nova's first permutation.
  Placement placement;
  for (std::size_t g = 0; g < guests; ++g) {
    for (std::size_t p = 0; p < hosts; ++p) {
      if (taken[p] || !fits[g][p]) continue;
      taken[p] = true;
      if (has_complete_matching(fits, g + 1, taken)) {
        const HostCell& cell = host.cells[order[p]];
        CellPlacement cp;
        cp.guest_cell = guest.cells[g].id;
        cp.host_cell = cell.id;
        cp.guest_cpus = guest.cells[g].cpus;
        cp.host_cpus = cell.shared_cpus;
        cp.memory_kib = guest.cells[g].memory_kib;
        placement.cells.push_back(std::move(cp));
        break;
      }
      taken[p] = false;
    }
  }
  result.placement = std::move(placement);
  return result;
}

}  // namespace numaplace

#include "placement/fit.h"

#include <algorithm>
#include <numeric>

#include "placement/cell_fit.h"
#include "placement/pci_pools.h"

namespace numaplace {
namespace {

// The ordered search over (guest cell, host position) with sound pruning.
class OrderedSearch {
 public:
  OrderedSearch(const HostTopology& host, const std::vector<std::size_t>& order,
                const std::vector<std::vector<char>>& fits, const std::vector<PciDemand>& demands)
      : host_(host), order_(order), fits_(fits), demands_(demands), guests_(fits.size()), hosts_(order.size()),
        taken_(hosts_, false), chosen_(guests_, 0), chosen_cells_(host.cells.size(), false) {
    for (const auto& d : demands_) {
      std::vector<std::size_t> by_devices(hosts_);
      std::iota(by_devices.begin(), by_devices.end(), 0);
      std::stable_sort(by_devices.begin(), by_devices.end(), [&](std::size_t a, std::size_t b) {
        return d.per_cell[order_[a]] > d.per_cell[order_[b]];
      });
      weight_order_.push_back(std::move(by_devices));
    }
  }

  // True when some completion from guest cell `next` on could succeed (never false when one can).
  bool feasible(std::size_t next) {
    const std::size_t remaining = guests_ - next;
    if (remaining == 0) return leaf_ok();
    bool bounded = false;
    for (std::size_t r = 0; r < demands_.size(); ++r) {
      const PciDemand& d = demands_[r];
      if (d.policy == PciNumaPolicy::Preferred) continue;  // any device will do; checked up front
      bounded = true;
      std::uint32_t reach = 0;
      if (!best_matching(next, &weight_order_[r], &d, &reach)) return false;
      std::uint32_t local = reach;
      for (std::size_t p = 0; p < hosts_; ++p) local += taken_[p] ? d.per_cell[order_[p]] : 0;
      bool ok = local >= d.request.count;
      if (!ok && d.policy == PciNumaPolicy::Legacy) ok = local + d.without_node >= d.request.count;
      if (!ok && d.policy == PciNumaPolicy::Socket) ok = socket_bound(next, d) >= d.request.count;
      if (!ok) {
        last_pci_shortfall_ = &d;
        return false;
      }
    }
    if (!bounded) return best_matching(next, nullptr, nullptr, nullptr);
    return true;
  }

  bool run(std::size_t g) {
    if (g == guests_) return true;
    for (std::size_t p = 0; p < hosts_; ++p) {
      if (taken_[p] || !fits_[g][p]) continue;
      ++tried_;
      take(g, p);
      if (feasible(g + 1) && run(g + 1)) return true;
      release(p);
    }
    return false;
  }

  const std::vector<std::size_t>& chosen() const { return chosen_; }
  std::size_t tried() const { return tried_; }
  const PciDemand* last_pci_shortfall() const { return last_pci_shortfall_; }

 private:
  void take(std::size_t g, std::size_t p) {
    taken_[p] = true;
    chosen_[g] = p;
    chosen_cells_[order_[p]] = true;
  }
  void release(std::size_t p) {
    taken_[p] = false;
    chosen_cells_[order_[p]] = false;
  }

  bool leaf_ok() {
    for (const auto& d : demands_) {
      if (!d.satisfied(host_, chosen_cells_)) {
        last_pci_shortfall_ = &d;
        return false;
      }
    }
    return true;
  }

  // Matches guest cells next.. onto free positions, trying positions in `position_order`
  // (most devices first) so that the matched positions carry the most devices any
  // complete matching can (the greedy is exact on this transversal matroid).
  // False when no complete matching exists; *reach = devices on the matched positions.
  bool best_matching(std::size_t next, const std::vector<std::size_t>* position_order, const PciDemand* d,
                     std::uint32_t* reach) {
    const std::size_t remaining = guests_ - next;
    match_of_guest_.assign(guests_, kNone);
    std::size_t matched = 0;
    std::uint32_t weight = 0;
    auto try_position = [&](std::size_t p) {
      if (taken_[p] || matched == remaining) return;
      visited_.assign(guests_, false);
      if (augment_from_position(p, next)) {
        ++matched;
        if (d) weight += d->per_cell[order_[p]];
      }
    };
    if (position_order) {
      for (std::size_t p : *position_order) try_position(p);
    } else {
      for (std::size_t p = 0; p < hosts_; ++p) try_position(p);
    }
    if (reach) *reach = weight;
    return matched == remaining;
  }

  // Kuhn's augmenting path starting at an unmatched host position.
  bool augment_from_position(std::size_t p, std::size_t next) {
    for (std::size_t g = next; g < guests_; ++g) {
      if (!fits_[g][p] || visited_[g]) continue;
      visited_[g] = true;
      if (match_of_guest_[g] == kNone || augment_from_position(match_of_guest_[g], next)) {
        match_of_guest_[g] = p;
        return true;
      }
    }
    return false;
  }

  // Devices on cells sharing a socket with a chosen cell or with any cell a remaining guest cell could take.
  std::uint32_t socket_bound(std::size_t next, const PciDemand& d) const {
    std::vector<std::uint32_t> sockets;
    for (std::size_t p = 0; p < hosts_; ++p) {
      const HostCell& cell = host_.cells[order_[p]];
      if (!cell.socket) return 0;
      bool reachable = taken_[p];
      for (std::size_t g = next; g < guests_ && !reachable; ++g) reachable = fits_[g][p];
      if (reachable) sockets.push_back(*cell.socket);
    }
    std::uint32_t near = 0;
    for (std::size_t i = 0; i < host_.cells.size(); ++i) {
      if (std::find(sockets.begin(), sockets.end(), *host_.cells[i].socket) != sockets.end()) near += d.per_cell[i];
    }
    return near;
  }

  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  const HostTopology& host_;
  const std::vector<std::size_t>& order_;
  const std::vector<std::vector<char>>& fits_;
  const std::vector<PciDemand>& demands_;
  const std::size_t guests_;
  const std::size_t hosts_;
  std::vector<bool> taken_;
  std::vector<std::size_t> chosen_;
  std::vector<bool> chosen_cells_;
  std::vector<std::vector<std::size_t>> weight_order_;
  std::vector<std::size_t> match_of_guest_;
  std::vector<bool> visited_;
  std::size_t tried_ = 0;
  const PciDemand* last_pci_shortfall_ = nullptr;
};

}  // namespace

std::optional<std::string> cell_misfit(const HostTopology& host, const HostCell& cell, const GuestTopology& guest,
                                       const GuestCell& guest_cell) {
  CellFit fit = fit_cell(host, cell, guest, guest_cell, reserves_emulator_cpu(guest, guest_cell));
  if (fit.fits) return std::nullopt;
  return fit.reason;
}

std::vector<std::size_t> nova_host_cell_order(const HostTopology& host, const GuestTopology& guest,
                                              const FitOptions& options) {
  std::vector<std::size_t> order(host.cells.size());
  std::iota(order.begin(), order.end(), 0);
  if (host.cells.size() <= guest.cells.size()) return order;  // Nova keeps host order then

  const bool pack = options.pack_host_cells;
  std::vector<double> key(host.cells.size());
  auto sort_by_key = [&] {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return pack ? key[a] < key[b] : key[a] > key[b]; });
  };
  for (std::size_t i = 0; i < host.cells.size(); ++i) {
    key[i] = static_cast<double>(host.cells[i].memory_kib) - static_cast<double>(host.cells[i].usage.memory_kib);
  }
  sort_by_key();
  const bool pinned = guest.cpu_policy == CpuPolicy::Dedicated || guest.cpu_policy == CpuPolicy::Mixed;
  for (std::size_t i = 0; i < host.cells.size(); ++i) {
    key[i] = pinned ? static_cast<double>(host.cells[i].free_dedicated_cpus().size()) : -host.cells[i].usage.shared_cpus;
  }
  sort_by_key();
  // Free PCI devices per cell: most first when the guest asks for devices, fewest first otherwise.
  std::vector<std::uint32_t> devices(host.cells.size());
  for (std::size_t i = 0; i < host.cells.size(); ++i) devices[i] = free_pci_devices_on(host, host.cells[i].id);
  const bool wants_pci = !guest.pci_requests.empty();
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return wants_pci ? devices[a] > devices[b] : devices[a] < devices[b];
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
  // fits[g][p]: guest cell g fits the host cell at position p of `order`. Whether it fits depends
  // only on the cell's shape (vCPU counts, memory, page size, emulator pCPU), so a guest cell
  // shaped like an earlier one shares its row.
  auto same_shape = [&](std::size_t a, std::size_t b) {
    const GuestCell& x = guest.cells[a];
    const GuestCell& y = guest.cells[b];
    return x.cpus.size() == y.cpus.size() && x.dedicated_cpus.size() == y.dedicated_cpus.size() &&
           x.memory_kib == y.memory_kib && x.pagesize == y.pagesize &&
           reserves_emulator_cpu(guest, x) == reserves_emulator_cpu(guest, y);
  };
  std::vector<std::vector<char>> fits(guests, std::vector<char>(hosts, 0));
  std::vector<std::vector<std::string>> reasons(guests, std::vector<std::string>(hosts));
  for (std::size_t g = 0; g < guests; ++g) {
    std::size_t twin = g;
    for (std::size_t e = 0; e < g && twin == g; ++e) twin = same_shape(e, g) ? e : g;
    const bool reserve = reserves_emulator_cpu(guest, guest.cells[g]);
    for (std::size_t p = 0; p < hosts; ++p) {
      const HostCell& cell = host.cells[order[p]];
      if (twin != g) {
        fits[g][p] = fits[twin][p];
        reasons[g][p] = reasons[twin][p];
      } else {
        CellFit fit = fit_cell(host, cell, guest, guest.cells[g], reserve);
        fits[g][p] = fit.fits ? 1 : 0;
        reasons[g][p] = std::move(fit.reason);
      }
      if (!fits[g][p]) result.rejections.push_back({guest.cells[g].id, cell.id, reasons[g][p]});
    }
  }

  const std::vector<PciDemand> demands = pci_demands(host, guest);
  for (const auto& d : demands) {
    if (d.total < d.request.count) {
      result.summary = "the guest asks for " + d.describe() + " but the host has " + std::to_string(d.total) +
                       " such free devices";
      return result;
    }
  }

  OrderedSearch search(host, order, fits, demands);
  const bool found = search.feasible(0) && search.run(0);
  result.assignments_tried = search.tried();
  if (!found) {
    if (const PciDemand* d = search.last_pci_shortfall()) {
      result.summary = "no assignment of guest cells to distinct host cells reaches the PCI devices: the guest asks for " +
                       d->describe() + "; free ones by host cell:";
      for (std::size_t i = 0; i < host.cells.size(); ++i) {
        result.summary += (i ? ", " : " ") + std::to_string(host.cells[i].id) + ": " + std::to_string(d->per_cell[i]);
      }
      result.summary += ", without NUMA node: " + std::to_string(d->without_node);
    } else {
      result.summary = "no assignment of guest cells to distinct host cells fits";
    }
    return result;
  }

  // The lexicographically first assignment over `order` is Nova's first permutation.
  Placement placement;
  for (std::size_t g = 0; g < guests; ++g) {
    const std::size_t p = search.chosen()[g];
    const HostCell& cell = host.cells[order[p]];
    const CellFit fit = fit_cell(host, cell, guest, guest.cells[g], reserves_emulator_cpu(guest, guest.cells[g]));
    CellPlacement cp;
    cp.guest_cell = guest.cells[g].id;
    cp.host_cell = cell.id;
    cp.guest_cpus = guest.cells[g].cpus;
    cp.memory_kib = guest.cells[g].memory_kib;
    cp.pagesize_kib = guest.cells[g].pagesize != kPageSizeNone ? static_cast<std::int64_t>(fit.pagesize_kib) : 0;
    cp.pinning = fit.pinning.pinning;
    cp.cpuset_reserved = fit.pinning.reserved;
    if (guest.cells[g].shared_cpus().empty() && !cp.pinning.empty()) {
      for (const auto& [vcpu, pcpu] : cp.pinning) cp.host_cpus.insert(pcpu);
    } else {
      cp.host_cpus = cell.shared_cpus;
    }
    placement.cells.push_back(std::move(cp));
  }
  result.placement = std::move(placement);
  return result;
}

}  // namespace numaplace

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The bounds of the search over (guest cell -> host cell position) assignments:
// `fits[g][p]` says guest cell g fits the host cell at position p of `order` on its
// own; `feasible(next)` is false only when no completion of the guest cells taken so
// far (0..next-1) can succeed: no complete matching of the remaining guest cells onto
// free positions (Kuhn's augmenting paths), or no completion can reach the PCI devices
// (per request, the most devices a complete matching can cover, by a greedy max-weight
// matching, exact on this transversal matroid). At next == guest cells it checks the
// PCI policies exactly. `run(0)` is Nova's ordered search: the lexicographically first
// complete assignment over positions, i.e. Nova's first permutation.
// The matrix is read through the reference on every call, so a caller may mask entries
// between calls (best_assignment.h does, to break symmetry between like guest cells).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "placement/model/host_topology.h"
#include "placement/fit/pci_pools.h"

namespace numaplace {

// The ordered search over (guest cell, host position) with sound pruning.
class AssignmentBounds {
 public:
  AssignmentBounds(const HostTopology& host, const std::vector<std::size_t>& order,
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

  // Guest cell g takes the host cell at position p / gives position p back.
  void take(std::size_t g, std::size_t p) {
    taken_[p] = true;
    chosen_[g] = p;
    chosen_cells_[order_[p]] = true;
  }
  void release(std::size_t p) {
    taken_[p] = false;
    chosen_cells_[order_[p]] = false;
  }
  bool taken(std::size_t p) const { return taken_[p]; }

 private:

  bool leaf_ok() { return pci_demands_satisfied(host_, demands_, chosen_cells_, &last_pci_shortfall_); }

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
  std::uint32_t socket_bound(std::size_t next, const PciDemand& d) {
    std::vector<std::uint32_t>& sockets = sockets_;
    sockets.clear();
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
  std::vector<std::uint32_t> sockets_;  // socket_bound's buffer, reused
  std::size_t tried_ = 0;
  const PciDemand* last_pci_shortfall_ = nullptr;
};

}  // namespace numaplace

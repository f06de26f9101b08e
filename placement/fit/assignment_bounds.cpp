// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/fit/assignment_bounds.h"

#include <algorithm>
#include <numeric>

namespace numaplace {

AssignmentBounds::Buffers& AssignmentBounds::claim_buffers(std::unique_ptr<Buffers>& own) {
  thread_local Buffers shared;
  if (shared.in_use) {
    own = std::make_unique<Buffers>();
    own->in_use = true;
    return *own;
  }
  shared.in_use = true;
  return shared;
}

AssignmentBounds::AssignmentBounds(const HostTopology& host, const std::vector<std::size_t>& order,
                                   const FitMatrix& fits, const std::vector<PciDemand>& demands,
                                   const std::vector<NetworkDemand>& networks)
    : host_(host), order_(order), fits_(fits), demands_(demands), networks_(networks), guests_(fits.rows()),
      hosts_(order.size()), buffers_(claim_buffers(own_)), taken_(buffers_.taken), chosen_(buffers_.chosen),
      chosen_cells_(buffers_.chosen_cells), weight_order_(buffers_.weight_order),
      network_order_(buffers_.network_order), match_of_guest_(buffers_.match_of_guest), visited_(buffers_.visited),
      sockets_(buffers_.sockets) {
  taken_.assign(hosts_, false);
  chosen_.assign(guests_, 0);
  chosen_cells_.assign(host.cells.size(), false);
  // Per demand, positions by devices on their cell, most first: best_matching's greedy order.
  weight_order_.resize(demands_.size());
  for (std::size_t r = 0; r < demands_.size(); ++r) {
    const PciDemand& d = demands_[r];
    std::vector<std::size_t>& by_devices = weight_order_[r];
    by_devices.resize(hosts_);
    std::iota(by_devices.begin(), by_devices.end(), 0);
    std::stable_sort(by_devices.begin(), by_devices.end(), [&](std::size_t a, std::size_t b) {
      return d.per_cell[order_[a]] > d.per_cell[order_[b]];
    });
  }
  network_order_.resize(networks_.size());
  for (std::size_t r = 0; r < networks_.size(); ++r) {
    const NetworkDemand& d = networks_[r];
    std::vector<std::size_t>& providing_first = network_order_[r];
    providing_first.resize(hosts_);
    std::iota(providing_first.begin(), providing_first.end(), 0);
    std::stable_sort(providing_first.begin(), providing_first.end(), [&](std::size_t a, std::size_t b) {
      return d.per_cell[order_[a]] > d.per_cell[order_[b]];
    });
  }
}

AssignmentBounds::~AssignmentBounds() { buffers_.in_use = false; }

bool AssignmentBounds::feasible(std::size_t next) {
  const std::size_t remaining = guests_ - next;
  if (remaining == 0) return leaf_ok();
  bool bounded = false;
  for (std::size_t r = 0; r < demands_.size(); ++r) {
    const PciDemand& d = demands_[r];
    if (d.policy == PciNumaPolicy::Preferred) continue;  // any device will do; checked up front
    bounded = true;
    std::uint32_t reach = 0;
    if (!best_matching(next, &weight_order_[r], &d.per_cell, &reach)) return false;
    std::uint32_t local = reach;
    for (std::size_t p = 0; p < hosts_; ++p) local += taken_[p] ? d.per_cell[order_[p]] : 0;
    bool ok = local >= d.request.count;
    if (!ok && d.policy == PciNumaPolicy::Legacy) ok = local + d.without_node >= d.request.count;
    if (!ok && d.policy == PciNumaPolicy::Socket) ok = socket_bound(next, d) >= d.request.count;
    if (!ok) {
      last_pci_shortfall_ = &d;
      last_network_shortfall_ = nullptr;
      return false;
    }
  }
  for (std::size_t r = 0; r < networks_.size(); ++r) {
    const NetworkDemand& d = networks_[r];
    bool met = false;
    for (std::size_t p = 0; p < hosts_ && !met; ++p) met = taken_[p] && d.per_cell[order_[p]];
    if (met) continue;
    bounded = true;
    std::uint32_t reach = 0;
    if (!best_matching(next, &network_order_[r], &d.per_cell, &reach)) return false;
    if (reach == 0) {
      last_network_shortfall_ = &d;
      last_pci_shortfall_ = nullptr;
      return false;
    }
  }
  if (!bounded) return best_matching(next, nullptr, nullptr, nullptr);
  return true;
}

bool AssignmentBounds::run(std::size_t g) {
  if (g == guests_) return true;
  for (std::size_t p = 0; p < hosts_; ++p) {
    if (taken_[p] || !fits_.at(g, p)) continue;
    ++tried_;
    take(g, p);
    if (feasible(g + 1) && run(g + 1)) return true;
    release(p);
  }
  return false;
}

void AssignmentBounds::take(std::size_t g, std::size_t p) {
  taken_[p] = true;
  chosen_[g] = p;
  chosen_cells_[order_[p]] = true;
}

void AssignmentBounds::release(std::size_t p) {
  taken_[p] = false;
  chosen_cells_[order_[p]] = false;
}

bool AssignmentBounds::leaf_ok() {
  if (!pci_demands_satisfied(host_, demands_, chosen_cells_, &last_pci_shortfall_)) {
    last_network_shortfall_ = nullptr;
    return false;
  }
  if (!network_demands_met(networks_, chosen_cells_, &last_network_shortfall_)) {
    last_pci_shortfall_ = nullptr;
    return false;
  }
  return true;
}

bool AssignmentBounds::best_matching(std::size_t next, const std::vector<std::size_t>* position_order,
                                     const std::vector<std::uint32_t>* weights, std::uint32_t* reach) {
  const std::size_t remaining = guests_ - next;
  match_of_guest_.assign(guests_, kNone);
  std::size_t matched = 0;
  std::uint32_t weight = 0;
  auto try_position = [&](std::size_t p) {
    if (taken_[p] || matched == remaining) return;
    visited_.assign(guests_, false);
    if (augment_from_position(p, next)) {
      ++matched;
      if (weights) weight += (*weights)[order_[p]];
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

bool AssignmentBounds::augment_from_position(std::size_t p, std::size_t next) {
  for (std::size_t g = next; g < guests_; ++g) {
    if (!fits_.at(g, p) || visited_[g]) continue;
    visited_[g] = true;
    if (match_of_guest_[g] == kNone || augment_from_position(match_of_guest_[g], next)) {
      match_of_guest_[g] = p;
      return true;
    }
  }
  return false;
}

std::uint32_t AssignmentBounds::socket_bound(std::size_t next, const PciDemand& d) {
  std::vector<std::uint32_t>& sockets = sockets_;
  sockets.clear();
  for (std::size_t p = 0; p < hosts_; ++p) {
    const HostCell& cell = host_.cells[order_[p]];
    if (!cell.socket) return 0;
    bool reachable = taken_[p];
    for (std::size_t g = next; g < guests_ && !reachable; ++g) reachable = fits_.at(g, p);
    if (reachable) sockets.push_back(*cell.socket);
  }
  std::uint32_t near = 0;
  for (std::size_t i = 0; i < host_.cells.size(); ++i) {
    if (std::find(sockets.begin(), sockets.end(), *host_.cells[i].socket) != sockets.end()) near += d.per_cell[i];
  }
  return near;
}

}  // namespace numaplace

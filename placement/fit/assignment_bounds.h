/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Nova's ordered search over (guest cell -> host cell position) assignments, and the
// sound pruning both searches share: a partial assignment is dropped only when no
// completion can succeed (no complete matching, or no completion reaching the PCI devices or
// a host cell close to each of the guest's networks, network_demands.h).
// best_assignment.h drives the same bounds with its own order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "placement/fit/fit_matrix.h"
#include "placement/fit/network_demands.h"
#include "placement/fit/pci_pools.h"
#include "placement/model/host_topology.h"

namespace numaplace {

// The ordered search over (guest cell, host position) with sound pruning.
class AssignmentBounds {
 public:
  // `order`, `fits` and `demands` are read through their references on every call: they must
  // outlive the object, and a caller may mask entries of `fits` between calls (best_assignment.h
  // does, to break symmetry between like guest cells).
  AssignmentBounds(const HostTopology& host, const std::vector<std::size_t>& order,
                   const FitMatrix& fits, const std::vector<PciDemand>& demands,
                   const std::vector<NetworkDemand>& networks = no_network_demands());
  ~AssignmentBounds();
  AssignmentBounds(const AssignmentBounds&) = delete;
  AssignmentBounds& operator=(const AssignmentBounds&) = delete;

  // False only when no completion of guest cells 0..next-1 as taken can succeed: no complete
  // matching of the rest onto free positions (Kuhn's augmenting paths), or, per PCI request, the
  // most devices a complete matching can cover (greedy max-weight matching, exact on this
  // transversal matroid) fall short, or, per network demand not yet met by the cells taken, no
  // complete matching reaches a cell providing it (the same greedy, weight 1 on those cells).
  // At next == rows it checks the PCI policies and the network demands exactly.
  bool feasible(std::size_t next);

  // Nova's ordered search from guest cell `g`: true once every guest cell holds a position
  // (chosen() says which), trying positions in increasing order and pruning with feasible();
  // run(0) finds the lexicographically first complete assignment, Nova's first permutation.
  bool run(std::size_t g);

  const std::vector<std::size_t>& chosen() const { return chosen_; }  // position by guest cell index
  std::size_t tried() const { return tried_; }                        // positions run() took
  // The demand the last failed check fell short on, or null (a failure of the matching alone).
  const PciDemand* last_pci_shortfall() const { return last_pci_shortfall_; }
  // The network demand the last failed check fell short on, or null.
  const NetworkDemand* last_network_shortfall() const { return last_network_shortfall_; }

  // Guest cell g takes the host cell at position p / gives position p back.
  void take(std::size_t g, std::size_t p);
  void release(std::size_t p);
  bool taken(std::size_t p) const { return taken_[p]; }

 private:
  // At a complete assignment: the PCI policies and the network demands, checked exactly.
  bool leaf_ok();

  // Matches guest cells next.. onto free positions, trying positions in `position_order`
  // (most devices first) so that the matched positions carry the most devices any
  // complete matching can (the greedy is exact on this transversal matroid).
  // False when no complete matching exists; *reach = devices on the matched positions.
  // `weights`: per host cell index (a demand's per_cell), or null.
  bool best_matching(std::size_t next, const std::vector<std::size_t>* position_order,
                     const std::vector<std::uint32_t>* weights, std::uint32_t* reach);

  // Kuhn's augmenting path starting at an unmatched host position.
  bool augment_from_position(std::size_t p, std::size_t next);

  // Devices on cells sharing a socket with a chosen cell or with any cell a remaining guest cell could take.
  std::uint32_t socket_bound(std::size_t next, const PciDemand& d);

  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  // The working vectors, kept per thread from one search to the next (a ranking runs a search
  // per host, and these were allocated per search); every one is set again before it is read.
  // A second search alive on the same thread (none is, today) gets its own.
  struct Buffers {
    std::vector<bool> taken;
    std::vector<std::size_t> chosen;
    std::vector<bool> chosen_cells;
    std::vector<std::vector<std::size_t>> weight_order;
    std::vector<std::vector<std::size_t>> network_order;
    std::vector<std::size_t> match_of_guest;
    std::vector<bool> visited;
    std::vector<std::uint32_t> sockets;
    bool in_use = false;
  };
  static Buffers& claim_buffers(std::unique_ptr<Buffers>& own);

  const HostTopology& host_;
  const std::vector<std::size_t>& order_;
  const FitMatrix& fits_;
  const std::vector<PciDemand>& demands_;
  const std::vector<NetworkDemand>& networks_;
  const std::size_t guests_;
  const std::size_t hosts_;
  std::unique_ptr<Buffers> own_;  // only when the thread's buffers are in use
  Buffers& buffers_;
  std::vector<bool>& taken_;
  std::vector<std::size_t>& chosen_;
  std::vector<bool>& chosen_cells_;
  std::vector<std::vector<std::size_t>>& weight_order_;
  std::vector<std::vector<std::size_t>>& network_order_;  // per network demand: providing positions first
  std::vector<std::size_t>& match_of_guest_;
  std::vector<bool>& visited_;
  std::vector<std::uint32_t>& sockets_;  // socket_bound's buffer, reused
  std::size_t tried_ = 0;
  const PciDemand* last_pci_shortfall_ = nullptr;
  const NetworkDemand* last_network_shortfall_ = nullptr;
};

}  // namespace numaplace

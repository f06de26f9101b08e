/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The bounds of the search over (guest cell -> host cell position) assignments:
// `fits.at(g, p)` says guest cell g fits the host cell at position p of `order` on its
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

#include <cstddef>
#include <cstdint>
#include <vector>

#include "placement/fit/fit_matrix.h"
#include "placement/fit/pci_pools.h"
#include "placement/model/host_topology.h"

namespace numaplace {

// The ordered search over (guest cell, host position) with sound pruning.
class AssignmentBounds {
 public:
  // `order`, `fits` and `demands` are read through their references on every call: they must outlive the object.
  AssignmentBounds(const HostTopology& host, const std::vector<std::size_t>& order,
                   const FitMatrix& fits, const std::vector<PciDemand>& demands);

  // True when some completion from guest cell `next` on could succeed (never false when one can).
  bool feasible(std::size_t next);

  // Nova's ordered search from guest cell `g`: true once every guest cell holds a position
  // (chosen() says which), trying positions in increasing order and pruning with feasible().
  bool run(std::size_t g);

  const std::vector<std::size_t>& chosen() const { return chosen_; }  // position by guest cell index
  std::size_t tried() const { return tried_; }                        // positions run() took
  // The demand the last failed check fell short on, or null (a failure of the matching alone).
  const PciDemand* last_pci_shortfall() const { return last_pci_shortfall_; }

  // Guest cell g takes the host cell at position p / gives position p back.
  void take(std::size_t g, std::size_t p);
  void release(std::size_t p);
  bool taken(std::size_t p) const { return taken_[p]; }

 private:
  // At a complete assignment: the PCI policies, checked exactly.
  bool leaf_ok();

  // Matches guest cells next.. onto free positions, trying positions in `position_order`
  // (most devices first) so that the matched positions carry the most devices any
  // complete matching can (the greedy is exact on this transversal matroid).
  // False when no complete matching exists; *reach = devices on the matched positions.
  bool best_matching(std::size_t next, const std::vector<std::size_t>* position_order, const PciDemand* d,
                     std::uint32_t* reach);

  // Kuhn's augmenting path starting at an unmatched host position.
  bool augment_from_position(std::size_t p, std::size_t next);

  // Devices on cells sharing a socket with a chosen cell or with any cell a remaining guest cell could take.
  std::uint32_t socket_bound(std::size_t next, const PciDemand& d);

  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  const HostTopology& host_;
  const std::vector<std::size_t>& order_;
  const FitMatrix& fits_;
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

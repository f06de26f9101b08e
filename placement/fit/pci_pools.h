/* SPDX-License-Identifier: LGPL-2.1-or-later */
// PCI requests against the host's free devices, with Nova's pools and NUMA policies.
// Free devices matching a request's vendor/product (case-insensitive) are counted per
// host cell, without a NUMA node, and elsewhere. Whether a set of chosen host cells can
// serve the request depends on the policy:
//   required: devices on chosen cells;  legacy (default): on chosen cells or without a
//   NUMA node;  preferred: those if enough, else any device;  socket: devices on chosen
//   cells if enough, else on any cell sharing a socket with a chosen cell (never when
//   a cell's socket is unknown).
// Every condition only grows with the set of chosen cells, which makes the search's
// upper bounds (most devices any completion could reach) sound. Requests for the same
// device share its pools: Nova applies them one after another, each taking its devices
// from the pools its policy allows, in the order the host lists them (pci_demands_satisfied).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "placement/model/guest_request.h"
#include "placement/request/guest_topology.h"
#include "placement/model/host_topology.h"

namespace numaplace {

// One PCI request of the guest, with the host's matching free devices counted.
struct PciDemand {
  PciRequest request;
  PciNumaPolicy policy = PciNumaPolicy::Legacy;  // Unset is read as legacy
  std::vector<std::uint32_t> per_cell;          // matching free devices by host cell index
  std::uint32_t without_node = 0;               // matching free devices with no NUMA node
  std::uint32_t total = 0;                      // every matching free device
  std::size_t first_for_device = 0;             // index of the guest's first request for this device
  std::uint64_t asked_so_far = 0;               // devices this request and the earlier ones for it ask for

  // Devices usable when the guest's cells are exactly `chosen` (host cell indexes, flags).
  std::uint32_t usable(const HostTopology& host, const std::vector<bool>& chosen) const;
  // Whether those usable devices hold the request (fit_demands.h: a comparison of one dimension,
  // "pci"), like every other fit check.
  bool satisfied(const HostTopology& host, const std::vector<bool>& chosen) const;
  std::string describe() const;  // "2 x 8086:154d (policy required)"
};

// The guest's PCI requests against the host's free devices, in the guest's order.
std::vector<PciDemand> pci_demands(const HostTopology& host, const GuestTopology& guest);

// Whether all the requests can be served at once when the guest's cells are exactly `chosen`:
// each on its own (PciDemand::satisfied), and, where requests share devices, one after another
// as Nova applies them. On false, `*shortfall` (when given) is the request that cannot be served.
bool pci_demands_satisfied(const HostTopology& host, const std::vector<PciDemand>& demands,
                           const std::vector<bool>& chosen, const PciDemand** shortfall);

// Free PCI devices of every kind on host cell `cell_id` (Nova's third sort key).
std::uint32_t free_pci_devices_on(const HostTopology& host, std::uint32_t cell_id);

}  // namespace numaplace

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// PCI requests against the host's free devices, with Nova's pools and NUMA policies.
// A request matches a free device when any of its specs does (every key of the spec names the
// device's value, without case; a request without specs: its vendor and product). Of those,
// devices of a kind the request does not ask for are not given to it, as in Nova: a device
// tagged dev_type "type-PF" or "vdpa" (Nova's names) unless a spec asks for that dev_type, one tagged
// remote_managed true unless a spec asks for remote_managed true. Matching devices are counted
// per host cell, without a NUMA node, and elsewhere. Whether a set of chosen host cells can
// serve the request depends on the policy:
//   required: devices on chosen cells;  legacy (default): on chosen cells or without a
//   NUMA node;  preferred: those if enough, else any device;  socket: devices on chosen
//   cells if enough, else on any cell sharing a socket with a chosen cell (never when
//   a cell's socket is unknown).
// "If enough" counts every matching device, of the kinds not asked for too: Nova decides the
// NUMA policy's step before it drops those kinds. The devices a request may be given only grow
// with the set of chosen cells in every step, which makes the search's upper bounds (most
// devices any completion could reach) sound; the exact check runs on complete assignments.
// Requests that can draw on one device share its pools: Nova applies them one after another,
// each taking its devices from the pools its policy allows, in Nova's order of pools (the order
// the host lists them, pools with fewer tags first) (pci_demands_satisfied); a request naming one
// device (by address) takes it before the others.
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
  // The counts above are of the devices the request may be given; these, used only when some
  // matching device is of a kind it does not ask for (else empty), count those too.
  std::vector<std::uint32_t> per_cell_matching;
  std::uint32_t without_node_matching = 0;
  std::size_t first_for_device = 0;             // index of the guest's first request for the same devices
  std::uint64_t asked_so_far = 0;               // devices this request and the earlier ones for it ask for
  bool shares_devices = false;                  // another request of the guest matches one of its devices

  // Devices usable when the guest's cells are exactly `chosen` (host cell indexes, flags).
  std::uint32_t usable(const HostTopology& host, const std::vector<bool>& chosen) const;
  // Whether those usable devices hold the request (fit_demands.h: a comparison of one dimension,
  // "pci"), like every other fit check.
  bool satisfied(const HostTopology& host, const std::vector<bool>& chosen) const;
  std::string describe() const;  // "2 x 8086:154d (policy required)", "1 x dev_type=type-VF product_id=154d ..."
};

// The guest's PCI requests against the host's free devices, in the guest's order.
std::vector<PciDemand> pci_demands(const HostTopology& host, const GuestTopology& guest);

// Whether all the requests can be served at once when the guest's cells are exactly `chosen`:
// each on its own (PciDemand::satisfied), and, where requests share devices, one after another
// as Nova applies them. On false, `*shortfall` (when given) is the request that cannot be served.
bool pci_demands_satisfied(const HostTopology& host, const std::vector<PciDemand>& demands,
                           const std::vector<bool>& chosen, const PciDemand** shortfall);

// The devices the guest is given when its cells are exactly `chosen`: each request served in
// turn, as pci_demands_satisfied serves requests that share devices (those naming a device
// first), from the pools its policy allows, each pool's devices in the host's order. Empty when
// the requests cannot all be served. What a claim of the fitted guest holds.
std::vector<const PciDevice*> pci_devices_given(const HostTopology& host, const std::vector<PciDemand>& demands,
                                                const std::vector<bool>& chosen);

// Free PCI devices of every kind on host cell `cell_id` (Nova's third sort key).
std::uint32_t free_pci_devices_on(const HostTopology& host, std::uint32_t cell_id);

}  // namespace numaplace

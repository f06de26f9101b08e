/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Network NUMA affinity as Nova 26 applies it (hardware._numa_cells_support_network_metadata):
// a constraint on the SET of host cells a guest's cells take, like the PCI policies.
//   - physnets: every physnet the guest asks for that SOME host cell is close to must be close
//     to one of the chosen cells; a physnet no host cell names puts no constraint at all
//     (the host has said nothing about it);
//   - tunneled: when the guest asks for tunneled networks and some host cell is close to them,
//     one of the chosen cells must be; when no host cell is, nothing is required.
// Each such requirement is a NetworkDemand: a set of host cells of which at least one must be
// chosen. The condition only grows with the chosen set, so "some completion still reaches a
// cell of the set" is a sound bound for the searches (assignment_bounds.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "placement/model/host_topology.h"
#include "placement/model/network_affinity.h"

namespace numaplace {

// One requirement: the chosen host cells must include one that provides it.
struct NetworkDemand {
  std::string what;                     // "physnet 'physnet1'" or "tunneled networks"
  std::vector<std::uint32_t> per_cell;  // by host cell index: 1 where the cell provides it, else 0
};

// The requirements `asked` puts on `host`, physnets in ascending order, then tunneled; empty
// when nothing is asked or the host's cells name none of it.
std::vector<NetworkDemand> network_demands(const HostTopology& host, const NetworkAffinity& asked);

// Whether the host cells flagged in `chosen` (by host cell index) meet every requirement; on
// false, `*shortfall` (when given) is the first requirement they miss.
bool network_demands_met(const std::vector<NetworkDemand>& demands, const std::vector<bool>& chosen,
                         const NetworkDemand** shortfall = nullptr);

// The NoFit sentence when no assignment meets `d`: the requirement and the host cells that provide it.
std::string network_shortfall_text(const HostTopology& host, const NetworkDemand& d);

// An empty list, for callers that have no network demands.
const std::vector<NetworkDemand>& no_network_demands();

}  // namespace numaplace

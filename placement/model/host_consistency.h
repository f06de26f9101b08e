/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Whether a host model describes a machine that could exist. Every reader runs it on what it read
// (capabilities, hwloc, host JSON, packed cells), so that each source refuses the same
// contradictions by the same name, whichever surface (CLI, C ABI, Python) reads it:
//   DuplicateNumaNode     a cell id given twice;
//   InconsistentHost      a CPU in two cells or in two sibling groups of a cell (cell_cpu_problem);
//                         a PCI device listed twice; a cell of more
//                         than 1 EiB, a page size above 1 TiB or a pool above 2^40 pages (the host
//                         JSON's bounds, so that what one reader takes every reader takes back);
//   InvalidNumaDistances  a distance row of another length than the cells (no row at all is fine),
//                         a distance of 0, or a cell farther from itself than from another cell.
// A placement on such a host would bind what no machine can honour (two guest cells on "one" node,
// a device on a node that is not there). Pure; no I/O.
#pragma once

#include <string>

#include "placement/model/error.h"
#include "placement/model/host_topology.h"

namespace numaplace {

// Done, or the first contradiction found, its message starting with `what` (the source's name).
Status check_host_consistency(const HostTopology& host, const std::string& what);

// InconsistentHost when a PCI device is on a NUMA node no cell has. For a machine's own description
// (hwloc); Nova's host model (host JSON, packed cells) keeps such devices, as Nova's PCI pools may
// sit on nodes its NUMA topology does not list, and its fit never takes them for a cell.
Status check_pci_device_nodes(const HostTopology& host, const std::string& what);

}  // namespace numaplace

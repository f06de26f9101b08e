/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The one way a host is read from a libvirt connection, for the C ABI and the CLI alike: the
// capabilities' cells, every PCI node device (a device whose XML cannot be read is left out and
// named in `warnings`, never dropped silently), and, when asked, the cells' free memory counted as
// used. add_or_update_pci is the rule for a device seen twice (a --nodedev file after libvirt).
#pragma once

#include <string>
#include <vector>

#include "placement/model/error.h"
#include "placement/model/host_topology.h"
#include "plugin/sources/libvirt_connection.h"

namespace numaplace::plugin {

struct LibvirtHost {
  HostTopology host;
  std::vector<std::string> warnings;  // "PCI device not counted: InvalidNodeDevice: why", one a device
};

// The host behind `conn`; free_memory applies virNodeGetCellsFreeMemory (not for test:///).
Result<LibvirtHost> load_libvirt_host(const LibvirtConnection& conn, bool free_memory);

// Adds `dev`, or replaces the device with its address, keeping a known NUMA node when `dev` has
// none.
void add_or_update_pci(HostTopology& host, PciDevice dev);

}  // namespace numaplace::plugin

// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/sources/libvirt_host.h"

#include <utility>

#include "plugin/sources/free_memory.h"
#include "xml/capabilities_reader.h"

namespace numaplace::plugin {

void add_or_update_pci(HostTopology& host, PciDevice dev) {
  for (auto& known : host.pci) {
    if (known.address != dev.address) continue;
    if (!dev.numa_node) dev.numa_node = known.numa_node;
    known = std::move(dev);
    return;
  }
  host.pci.push_back(std::move(dev));
}

Result<LibvirtHost> load_libvirt_host(const LibvirtConnection& conn, bool free_memory) {
  auto caps = conn.capabilities_xml();
  if (!caps) return caps.error();
  auto host = xml::read_capabilities(*caps, "capabilities of '" + conn.uri() + "'");
  if (!host) return host.error();
  LibvirtHost loaded{std::move(*host), {}};
  auto scan = conn.pci_node_devices();
  if (!scan) return scan.error();
  for (const auto& refused : scan->refused) {
    loaded.warnings.push_back("PCI device not counted: " + refused.name + ": " + refused.message);
  }
  for (auto& dev : scan->pci) add_or_update_pci(loaded.host, std::move(dev));
  if (free_memory) {
    auto free = conn.cells_free_memory();
    if (!free) return free.error();
    apply_free_memory(loaded.host, *free);
  }
  return loaded;
}

}  // namespace numaplace::plugin

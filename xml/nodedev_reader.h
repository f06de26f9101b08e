/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Reads libvirt node device XML (`virsh nodedev-dumpxml`, one <device>) or a
// test-driver host file (<node> holding many <device>s) into PciDevices:
// address "dddd:bb:ss.f", NUMA node (absent or -1: unknown), vendor and product
// ids and class as lower-case hex without 0x, SR-IOV role (virt_functions: a PF;
// phys_function: a VF and its PF's address). Devices without a PCI capability
// (scsi, usb, net, ...) are skipped, not refused. A PCI device with a missing or
// impossible field (bus above 255, function above 7, junk ids) is refused with a
// named error ("InvalidNodeDevice") that names the device and the field.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "placement/model/error.h"
#include "placement/model/host_topology.h"

namespace numaplace::xml {

// One node device document (root <device>). nullopt: a valid device that is not PCI.
// Errors: the XmlDocument errors, "NotNodeDevice" (another root), "InvalidNodeDevice".
Result<std::optional<PciDevice>> read_pci_node_device(std::string_view text,
                                                      std::string_view what = "node device XML");

// What a document of one or many node devices holds.
struct NodeDeviceScan {
  std::vector<PciDevice> pci;  // readable PCI devices, in document order
  std::size_t skipped = 0;     // devices that are not PCI
  std::vector<Error> refused;  // malformed PCI devices, one error each ("InvalidNodeDevice")
};

// Root <device> (one device) or <node> (a test-driver file: its <device> children).
// A malformed device does not stop the scan; it lands in `refused`. Errors only for
// the document as a whole: the XmlDocument errors and "NotNodeDevice".
Result<NodeDeviceScan> read_node_devices(std::string_view text, std::string_view what = "node device XML");

}  // namespace numaplace::xml

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Reads what placement needs from a libvirt domain XML: its name, type, vCPU
// count (the maximum in <vcpu>) and memory (<memory>, in KiB; without one, or
// empty or 0, the sum of the <cpu><numa> cells and the memory devices, as libvirt
// computes it), the memory devices' sizes, which <memory> includes, and each guest
// cell's page size (guest_pages.h). Refuses
// documents that are not <domain>, a guest without memory, absurd sizes and an
// element numaplace reads given twice.
#pragma once

#include <libxml/tree.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "placement/model/cpu_set.h"
#include "placement/model/error.h"
#include "xml/guest_pages.h"

namespace numaplace::xml {

// libvirt itself refuses more vCPUs than this per guest (QEMU's limit is lower still).
inline constexpr std::uint32_t kMaxGuestVcpus = 16384;

struct DomainSummary {
  std::string name;
  std::string uuid;  // empty when the domain has none yet
  std::string type;
  std::uint32_t vcpus = 0;
  std::uint64_t memory_kib = 0;                // <memory>; without one (or 0), the cells and devices, as libvirt sets it
  std::uint64_t memory_device_kib = 0;         // <devices><memory> (dimm, nvdimm, virtio-mem, ...) targets
  std::optional<std::uint64_t> cells_memory_kib;  // the <cpu><numa> cells' sum; nullopt without cells
  std::uint32_t guest_cells = 0;               // how many <cpu><numa> cells; 0 without
  GuestPages pages;                            // <memoryBacking><hugepages> (guest_pages.h)
  // PCI devices of <hostdev type='pci'> and <interface type='hostdev'>, by source address
  // "dddd:bb:ss.f", each once.
  std::vector<std::string> pci_hostdevs;
};

// A PCI <address domain bus slot function> as libvirt reads it (each part hex with 0x, octal
// with a leading 0, else decimal) in canonical form ("0000:18:00.0"); InvalidDomain naming `what`.
Result<std::string> pci_source_address(const xmlNode* address, const std::string& what);

Result<DomainSummary> read_domain_summary(const xmlDoc* doc, const std::string& what);

// The memory the guest boots with, which its NUMA cells hold (the memory devices come on top):
// the cells' sum when it has cells, as libvirt boots it, else <memory> less the devices.
std::uint64_t boot_memory_kib(const DomainSummary& summary);

}  // namespace numaplace::xml

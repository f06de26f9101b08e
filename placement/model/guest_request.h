/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What a guest asks for, before interpretation: its size and the raw NUMA wishes
// written as OpenStack flavor extra specs ("hw:numa_nodes") and image properties
// ("hw_numa_nodes"). guest_topology.h turns this into a GuestTopology or an error.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "placement/model/network_affinity.h"
#include "placement/model/pci_tag_value.h"

namespace numaplace {

using SpecMap = std::map<std::string, std::string>;

// One alternative of a PCI request (an entry of Nova's InstancePCIRequest.spec): a device matches
// it when every key's value matches the device's (tag_matches: strings without case, None a
// missing or None tag): vendor_id and product_id the device's ids, any other key (dev_type,
// physical_network, remote_managed, ...) its tags.
using PciSpec = std::map<std::string, PciTagValue>;

struct PciRequest {
  std::uint32_t count = 1;
  std::string vendor_id;
  std::string product_id;
  // The PCI alias's own numa_policy ("required", "preferred", "legacy", "socket"; empty: none).
  // The guest's hw:pci_numa_affinity_policy, when set, overrides it, as in Nova.
  std::string alias_numa_policy;
  // One device exactly (a domain's <hostdev>): the host's address for it, as host.pci names it;
  // empty: any free device of the vendor and product (a Nova PCI alias).
  std::string address;
  // Nova's spec list: a free device matching any of these serves the request (pci_pools.h);
  // empty: the one spec {vendor_id, product_id} above.
  std::vector<PciSpec> specs;
};

struct GuestRequest {
  std::uint32_t vcpus = 0;
  std::uint64_t memory_kib = 0;
  SpecMap flavor_specs;   // hw:* keys
  SpecMap image_props;    // hw_* keys
  std::vector<PciRequest> pci;
  NetworkAffinity networks;  // physnets / tunneled networks of the guest's ports (Nova's limits.network_metadata)
};

}  // namespace numaplace

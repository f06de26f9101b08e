/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A host as JSON, the schema of the nova-fit reference vectors
// (../shared/conformance/nova/README.md, "host"), so that a scheduler can hand
// numaplace the hosts it already describes that way:
//   {"name": "h1",                                        (optional; for rank)
//    "cells": [{"id": 0, "cpus": [0,1,2,3] | "0-3", "siblings": [[0,2],[1,3]],
//               "memory_mib": 4096 | "memory_kib": 4194304,
//               "pages": [{"size_kib": 2048, "total": 512, "used": 0, "reserved": 0}],
//               "shared_cpuset": [...], "dedicated_cpuset": [...], "socket": 0,
//               "distances": [10, 21],
//               "network_metadata": {"physnets": ["physnet1"], "tunneled": false},  (Nova's; optional)
//               "usage": {"shared_cpus": 1.5, "pinned_cpus": [2,3] | "2-3",
//                         "memory_mib": 1024 | "memory_kib": ...}}],
//    "pci": [{"address", "numa_node", "vendor_id", "product_id", "allocated", "tags": {KEY: VALUE}}],
//    "allocation_ratio": {"cpu": 16.0, "ram": 1.5} | null}   (null: no limits, as Nova's limits=None;
//                                                              scores then use the default ratios)
// Every field is checked (types, ranges, CPU ids up to kMaxCpuId,
// sizes that do not overflow KiB); a bad one is "InvalidHostJson" naming where it is. What the
// host says that contradicts itself (a cell id twice, a CPU in two cells) is named by
// check_host_consistency, as for every reader (DuplicateNumaNode, InconsistentHost ...).
// pci_devices_from_json_text reads the "pci" list alone, cell_networks_from_json_text the cells'
// network_metadata alone (for host_cells.h).
// host_to_json writes the same schema, the one writer of a host (the C ABI's np_host_to_json and
// `numaplace topology --json`): memory in KiB, every CPU list an array (an empty one is []),
// shared_cpuset and dedicated_cpuset always, and per cell a computed "free" object (pCPUs to pin,
// pCPUs to float on, memory a strict binding may take, free pages per size) that the reader
// ignores; so a host read from capabilities, hwloc or libvirt can be stored and read back.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "placement/model/error.h"
#include "placement/model/host_topology.h"

namespace numaplace::plugin {

Result<HostTopology> host_from_json(const nlohmann::json& host, std::string_view what = "host JSON");
// Parses the text first ("InvalidHostJson" when it is not JSON).
Result<HostTopology> host_from_json_text(std::string_view text, std::string_view what = "host JSON");

// A "pci" list of the schema above, as text.
Result<std::vector<PciDevice>> pci_devices_from_json_text(std::string_view text, std::string_view what = "pci");
// The cells' "network_metadata", as the text of a list of `cells` entries, each null (none) or
// the schema's object.
Result<std::vector<NetworkAffinity>> cell_networks_from_json_text(std::string_view text, std::size_t cells,
                                                                  std::string_view what = "networks");

// The host in the schema above; host_from_json(host_to_json(h)) gives h back.
nlohmann::json host_to_json(const HostTopology& host);

}  // namespace numaplace::plugin

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What `numaplace topology` shows of a host with its claims folded in, as rows of text: one row per
// host cell (the table, and the HTML host map's table), and per guest what it holds. Both read
// the host model only (HostTopology after fold_claims, and the claims themselves), the same
// values `topology --json` writes through plugin::host_to_json.
#pragma once

#include <string>
#include <vector>

#include "placement/lifecycle/claims.h"
#include "placement/model/host_topology.h"

namespace numaplace::cli {

// The header row first, then one row per cell: cell, cpus, cores, memory MiB, pages, distances,
// held pCPUs, free pCPUs, shared load, used MiB, free MiB, pci.
std::vector<std::vector<std::string>> topology_rows(const HostTopology& host);

// What one guest holds, cell by cell: "cell 0 {pinned 0-1, 256x2048 KiB pages} pci 0000:3b:00.0".
std::string describe_holdings(const HostTopology& host, const GuestClaim& claim);

}  // namespace numaplace::cli

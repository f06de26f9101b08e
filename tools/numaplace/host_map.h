/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The host map of `numaplace topology --svg FILE` and `--html FILE`: the host's NUMA cells with
// their cores (thread siblings grouped) and threads, who holds each pCPU (pinned solid, held idle
// dotted, floating hatched, each guest in its colour, with a legend), each cell's memory and page
// pools used and free, and its PCI devices with their holders. It draws the host model after
// fold_claims and the claims themselves, the very values `topology --json` writes
// (plugin::host_to_json, json_output.h): memory used is HostCell::usage, memory free is
// strict_memory_room_kib, pages are the cell's pools; nothing is measured again. The host model
// knows no caches, so no L3 domains are drawn.
//
// Every pCPU is one element <g class="pcpu" data-cpu="N" data-cell="C" data-state="S"> where S is
// pinned, idle (held without a vCPU: isolate's siblings, an isolated emulator pCPU), floating,
// free or host (in neither the shared nor the dedicated set); a pinned or idle pCPU has
// data-holder (the guest's name), and its <title> names every guest on it. Each cell is
// <g class="cell" data-cell="C" data-memory-kib data-used-kib data-free-kib>, each page pool in it
// <g class="pages" data-size-kib data-total data-used data-reserved data-free>, each PCI device
// <g class="pci" data-pci="ADDRESS" data-holder=...>. The document is built in memory with the
// escaping writer (markup_writer.h), so it is whole or not written at all.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "placement/lifecycle/claims.h"
#include "placement/model/host_topology.h"

namespace numaplace::cli {

// A standalone SVG document (XML declaration, root <svg> in the SVG namespace). `title` names the
// host (where it was read from).
std::string host_map_svg(const HostTopology& host, const std::vector<GuestClaim>& claims, std::string_view title);

// A self-contained HTML page: the same SVG inline, then the topology table (topology_table.h) and
// what each guest holds; no script, no external resource.
std::string host_map_html(const HostTopology& host, const std::vector<GuestClaim>& claims, std::string_view title);

}  // namespace numaplace::cli

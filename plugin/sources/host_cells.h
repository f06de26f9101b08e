/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A host from packed cell words: the nova-fit host schema's cells (host_json.h) as one array of
// 64-bit integers, for a scheduler that converts many hosts often (numaplace.nova's filter), where
// building and parsing JSON text is most of the cost. The words, in order:
//   CELL_COUNT, then per cell:
//     ID, MEMORY_MIB, SHARED_CPUS_USED, MEMORY_USED_MIB, SOCKET (-1: none),
//     N, N shared CPU ids (Nova's cpuset), N, N dedicated CPU ids (pcpuset), N, N pinned CPU ids,
//     GROUPS, the size of each thread-sibling group (GROUPS words), then every group's CPU ids in
//     turn (as many words as the sizes add up to),
//     PAGES, then per page pool: SIZE_KIB, TOTAL, USED, RESERVED
// A cell's CPUs are its shared and dedicated CPUs together, as the JSON reader makes them from
// "shared_cpuset" and "dedicated_cpuset". Every value is checked as host_from_json checks its
// field (the same ranges; CPU ids up to kMaxCpuId, unique cell ids, memory that fits in KiB), and
// the words must end exactly where the last cell does. Ratios: both NaN is no limits (the JSON's
// "allocation_ratio": null), else each finite in (0, 1e6]. PCI devices come as the JSON host's
// "pci" list text (empty: none), read by the JSON reader (a bad one is its "InvalidHostJson");
// the cells' network affinity as the text of a JSON list with one entry per cell, in the words'
// order: null or the schema's "network_metadata" object (empty text: no cell has any; a list of
// another length, or a bad entry, is "InvalidHostJson").
// Accounting is Nova's, as for a JSON host. Bad words are "InvalidHostCells", saying which word
// and why.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "placement/model/error.h"
#include "placement/model/host_topology.h"

namespace numaplace::plugin {

Result<HostTopology> host_from_cells(std::span<const std::int64_t> words, double cpu_ratio, double ram_ratio,
                                     std::string_view pci_json, std::string_view networks_json = {});

// The cells and ratios of host_from_cells (no PCI devices, no networks) read into `into`, which may
// hold an earlier host: every field is set anew, and the cells' buffers are reused, so that a batch
// that keeps none of its hosts (np_fit_packed_hosts) makes each in the last one's memory. On an error
// `into` holds part of a host, for nothing but reading again.
Status read_host_cells(std::span<const std::int64_t> words, double cpu_ratio, double ram_ratio, HostTopology& into);

}  // namespace numaplace::plugin

/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Default placement for a guest that asks for no NUMA topology (kubelet
// TopologyManager style): every resource offers NUMA-affinity hints (each mask of
// host cells whose free capacity can serve it; preferred when of minimal width),
// the hints are merged under the host's policy, and the guest is confined to the
// merged mask without inventing a guest NUMA topology.
// Resources: vCPUs (shared capacity under the CPU ratio over the CPUs no dedicated guest
// holds; a pCPU per vCPU preferred), memory (physically free, within the RAM ratio) or huge
// pages of the requested size (exact),
// each PCI device (its own NUMA node; a device without one has no preference), and each vCPU
// the operator pinned (the cells its pin reaches: the mask must hold one of them).
// Masks are over the cells with CPUs only (memory-only nodes, CXL or GPU memory, are never
// chosen for such a guest): every subset up to kMaxEnumeratedCells of them; above, from each cell
// the closest cells added one at a time (by distance), and all of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "placement/model/cpu_set.h"
#include "placement/model/error.h"
#include "placement/hints/topology_hint.h"
#include "placement/hints/topology_policy.h"
#include "placement/model/host_topology.h"

namespace numaplace {

inline constexpr std::size_t kMaxEnumeratedCells = 8;

struct FloatingGuest {
  std::uint32_t vcpus = 0;
  std::uint64_t memory_kib = 0;
  std::uint64_t hugepage_kib = 0;  // 0: small pages
  // NUMA node of each PCI device the guest is given (nullopt: the device has none).
  std::vector<std::optional<std::uint32_t>> pci_device_nodes;
  // For each vCPU the operator pinned: the host cells its <vcpupin> reaches (its name first).
  std::vector<std::pair<std::string, CpuSet>> pinned_vcpu_cells;
};

struct DefaultPlacementOptions {
  TopologyPolicy policy = TopologyPolicy::BestEffort;
  // Among equally wide masks the closest cells (mean distance) first, so that a guest that does not
  // fit one small node (sub-NUMA clustering) gets the cells of one socket; without distances the
  // lowest-numbered, as the kubelet. On by default (the kubelet's default is off).
  bool prefer_closest_numa_nodes = true;
};

struct ResourceHints {
  std::string resource;                  // "cpu", "memory", "hugepages-2048", "pci:0000:3b:00.0"
  std::optional<HintList> hints;         // nullopt: no preference; empty: nothing can serve it
};

struct DefaultPlacement {
  std::optional<NumaNodeMask> cells;  // nullopt: not confined
  CpuSet cpus;                        // shared CPUs of those cells
  bool preferred = false;
  std::vector<ResourceHints> resources;
  std::string reason;                 // why this mask won (from the merge)
  // The guest's memory per confined cell (id, KiB), in proportion to what each can hold, as its
  // claim counts it; empty when not confined.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> memory_split;
};

// KiB a strict binding may still take on `cell`: small-page memory physically free (what guests
// and the host do not hold), never more than the RAM ratio leaves.
std::uint64_t strict_memory_room_kib(const HostTopology& host, const HostCell& cell);

// Why no set of the host's cells can hold `guest` (only its vCPUs, memory and page size are read):
// its memory beyond what the cells with CPUs can bind (in Nova's model, Accounting::Nova, what the
// RAM ratio leaves, as Nova's RamFilter counts; "memory: ..."), or its vCPUs beyond what the
// CPU ratio leaves on them ("vCPUs: ..."); nullopt when the host holds it. Room adds up over cells,
// so this is the whole host's room, and exactly when place_floating_guest refuses with NoFit: rank
// asks it so that a host it ranks is one place confines the guest on.
std::optional<std::string> floating_shortfall(const HostTopology& host, const FloatingGuest& guest);

// The cells chosen hold the guest whole: its vCPUs within the CPU ratio (and a pCPU each when some
// set of cells has that many) and its memory; best-effort widens the merged mask to such cells.
// Errors: "PolicyRefused" when restricted / single-numa-node cannot admit the guest (with why),
// "NoFit" when no set of cells holds its memory (a strict binding elsewhere would fail or be
// OOM-killed) or its vCPUs under the CPU ratio (message "memory: ..." or "vCPUs: ..."),
// "TooManyNumaNodes" for hosts above 64 cells.
Result<DefaultPlacement> place_floating_guest(const HostTopology& host, const FloatingGuest& guest,
                                              const DefaultPlacementOptions& options,
                                              const std::vector<std::string>& pci_names = {});

}  // namespace numaplace

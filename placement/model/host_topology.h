/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The host as the placement core sees it: NUMA cells with their CPUs, thread
// siblings, memory, huge pages, distances, network affinity, PCI devices, and what running guests
// already use in each cell. Plain values; every source (capabilities XML, hwloc,
// JSON vectors) fills the same structure. Memory is in KiB throughout.
// Accounting says how pinned and floating use meet: on a real host (Exclusive) a pCPU
// a dedicated guest holds is nobody else's, so floating vCPUs run, and are counted,
// on the shared CPUs left (floating_cpus_of); Nova's own model (Nova) lets them overlap.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "placement/model/cpu_set.h"
#include "placement/model/network_affinity.h"
#include "placement/model/pci_tag_value.h"

namespace numaplace {

struct PagePool {
  std::uint64_t size_kib = 4;
  std::uint64_t total = 0;     // pages
  std::uint64_t used = 0;      // pages held by guests
  std::uint64_t reserved = 0;  // pages the host keeps for itself
  std::uint64_t free() const { return total > used + reserved ? total - used - reserved : 0; }
};

// Sorts a cell's pools ascending by page size and returns a size listed more than once, if any.
// Every reader refuses such a cell: two pools of one size leave it a guess which one a guest's pages
// come from, and a host written out and read back would not be the same host.
std::optional<std::uint64_t> sort_page_pools(std::vector<PagePool>& pages);

struct CellUsage {
  double shared_cpus = 0;       // vCPUs of unpinned guests floating on the shared set
  CpuSet pinned_cpus;           // pCPUs held by dedicated guests (pins, isolate siblings, emulator pCPUs)
  std::uint64_t memory_kib = 0; // memory bound to this cell by guests (and kept by the host)
};

struct HostCell {
  std::uint32_t id = 0;
  CpuSet cpus;                  // every online CPU of the cell
  CpuSet shared_cpus;           // where shared (floating) vCPUs may run
  CpuSet dedicated_cpus;        // what dedicated vCPUs may be pinned to
  std::vector<CpuSet> siblings; // thread sibling groups covering `cpus`
  std::uint64_t memory_kib = 0;
  std::vector<PagePool> pages;  // ascending page size; empty: host reports none
  std::optional<std::uint32_t> socket;
  // The cell's CPUs grouped by the last-level (L3) cache they share, ascending by first CPU;
  // empty when the source does not say (or one cache spans the whole cell).
  std::vector<CpuSet> cache_domains;
  std::vector<std::uint32_t> distances;  // by host cell index, as the source reported
  NetworkAffinity network;      // physnets and tunneled networks close to the cell (host JSON only)
  CellUsage usage;

  std::uint64_t free_memory_kib() const { return memory_kib > usage.memory_kib ? memory_kib - usage.memory_kib : 0; }
  CpuSet free_dedicated_cpus() const { return dedicated_cpus.minus(usage.pinned_cpus); }
};

struct PciDevice {
  std::string address;  // domain:bus:slot.function
  std::optional<std::uint32_t> numa_node;
  std::string vendor_id;
  std::string product_id;
  bool allocated = false;
  std::string class_id;   // PCI class and subclass, 4 lower-case hex digits ("0200": Ethernet); empty: unknown
  bool is_pf = false;     // an SR-IOV physical function (it can have virtual functions)
  std::string parent_pf;  // for an SR-IOV virtual function: its physical function's address; else empty
  std::string held_by;    // the guest whose <hostdev> holds it, as its claim says; empty: nobody's
  // Further attributes a PCI request's spec may name, as the host states them (Nova's pool tags:
  // dev_type, physical_network, remote_managed, ...; a tag may be None); empty for devices read
  // from libvirt or hwloc.
  std::map<std::string, PciTagValue> tags;
};

struct AllocationRatio {
  double cpu = 16.0;  // Nova's defaults
  double ram = 1.5;
  // false: the host sets no limits (Nova's limits=None, a JSON host's "allocation_ratio": null), so
  // floating cells are not checked against the ratios at all; the ratios above still weigh scores.
  bool enforced = true;
};

enum class Accounting {
  // Real hosts: pCPUs held by dedicated guests are excluded from everyone else's floating set
  // and from the floating capacity; a strict memory binding needs physically free memory.
  Exclusive,
  // Nova 26's model (the reference vectors, admission replays): floating load and pinned pCPUs
  // are counted apart and may overlap on a host without a cpu_shared_set/cpu_dedicated_set split.
  Nova,
};

struct HostTopology {
  std::vector<HostCell> cells;
  std::vector<PciDevice> pci;
  AllocationRatio ratio;
  Accounting accounting = Accounting::Exclusive;
  std::uint64_t unbound_memory_kib = 0;  // memory of guests that bind it to no cell (it may be on any)

  const HostCell* find_cell(std::uint32_t id) const;
  // Distance between two cells by id, as the host reported it; nullopt when it did not.
  std::optional<std::uint32_t> distance(std::uint32_t from_id, std::uint32_t to_id) const;
};

// The first CPU that two of `host`'s cells name, as a sentence naming both cells and where each
// names it ("cell 1: cpu 4 (in its cpus) is also in cell 0 (in its sibling group 4-5); ..."); nullopt
// when there is none. A cell names its CPUs, its sibling groups and its pins; a sibling or pin may be
// a thread the cell's CPU sets leave out (Nova's cells without the host's reserved CPUs), never one of
// another cell's. A CPU two cells name could be pinned twice, once from each. Also a CPU in two of
// one cell's sibling groups ("cell 0: cpu 1 is in two sibling groups (0-1 and 1-2); ..."), which would
// count it in two cores. Readers of hosts that programs write (host JSON, packed cells) refuse such a host.
std::optional<std::string> cell_cpu_problem(const HostTopology& host);

// The host's cell ids as a list for messages, in the CPU-list form ("0-3,8"), "" for no cells.
std::string cell_id_list(const HostTopology& host);

// The id of the cell whose CPUs hold `cpu`, or nullopt when no cell does.
std::optional<std::uint32_t> cell_of_cpu(const HostTopology& host, std::uint32_t cpu);

// Splits `l3_caches` (each cache's CPUs, as the source lists them) along the cells: each cell gets
// the part of every cache within it, when that leaves it two or more domains (one domain over the
// whole cell says nothing a cell does not).
void assign_cache_domains(HostTopology& host, const std::vector<CpuSet>& l3_caches);

// The cell's smallest page pool (its small pages), or null when it reports none.
PagePool* smallest_pool(HostCell& cell);
const PagePool* smallest_pool(const HostCell& cell);

// KiB of the cell's small pages: its smallest pool's (huge page pools are carved out of the cell's
// memory), never more than the cell's memory (a pool a source reports larger than its node cannot
// all be there); the cell's memory when it reports no pools. The second form takes the cell's
// smallest_pool, for a caller that has it already.
std::uint64_t small_page_kib(const HostCell& cell);
std::uint64_t small_page_kib(const HostCell& cell, const PagePool* smallest);

// Where floating vCPUs may run on `cell`: its shared set, less (Exclusive accounting) the pCPUs
// that dedicated guests hold.
CpuSet floating_cpus_of(const HostTopology& host, const HostCell& cell);

}  // namespace numaplace

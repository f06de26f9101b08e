/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What guests already hold on a host, per host cell, and how that folds into
// HostCell::usage. A claim pins pCPUs (dedicated vCPUs) and holds more without
// running a vCPU there (isolate's sibling threads, the isolated emulator pCPU), carries
// shared vCPU load (floating vCPUs, possibly a fraction per cell when a vCPU may run on
// several cells), binds memory and huge pages to a cell, and holds PCI devices. Memory a
// guest did not bind to any cell is kept aside as unbound. Every thread of the guest
// (vCPUs, emulator, iothreads) comes with the pCPUs libvirt lets it run on, which is what
// narrowing (narrowing.h) works on. apply_claims is additive and pure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "placement/model/cpu_set.h"
#include "placement/model/host_topology.h"

namespace numaplace {

struct CellClaim {
  std::uint32_t host_cell = 0;
  CpuSet pinned_cpus;          // pCPUs its dedicated vCPUs are pinned to
  double shared_vcpus = 0;     // floating vCPU load on the cell's shared CPUs
  std::uint64_t memory_kib = 0;  // small-page memory bound here
  std::map<std::uint64_t, std::uint64_t> pages;  // huge page size KiB -> pages bound here
  CpuSet reserved_cpus;        // held, but no vCPU of its own runs there: isolate siblings, emulator pCPU

  CpuSet held_cpus() const { return pinned_cpus.united(reserved_cpus); }
};

// One thread of a guest and where libvirt lets it run.
struct ThreadAffinity {
  enum class Kind { Vcpu, Emulator, IoThread };
  Kind kind = Kind::Vcpu;
  std::uint32_t id = 0;  // the vCPU or iothread id (0 for the emulator)
  CpuSet cpus;           // the pCPUs it may run on
  std::string source;    // the element that says so: "<vcpupin vcpu='2'>", "<vcpu cpuset>", or
                         // "no pinning" (libvirt lets it run on every host CPU)
};

std::string describe(const ThreadAffinity& thread);  // "vCPU 2", "the emulator threads", "iothread 1"

struct GuestClaim {
  std::string name;
  std::string uuid;
  bool running = false;
  bool placed_by_numaplace = false;  // carries numaplace's own record
  std::vector<CellClaim> cells;
  std::uint64_t unbound_memory_kib = 0;
  double unbound_vcpus = 0;
  std::vector<ThreadAffinity> threads;   // every vCPU, the emulator, every iothread
  std::vector<std::string> pci_devices;  // host PCI addresses of its <hostdev>s, as the domain names them

  CpuSet held_cpus() const;  // every pCPU it holds for itself, over all cells
};

// Adds every claim to the usage of the cells it names: held pCPUs, load, memory (and the small
// pages it takes), huge pages;
// unbound memory to the host's; PCI devices become allocated and held by the guest (one the host
// does not list is added, held, without a NUMA node). Cells the
// host does not have are ignored (a guest defined for another host); returns the names of
// guests with such cells.
std::vector<std::string> apply_claims(HostTopology& host, const std::vector<GuestClaim>& claims);

// The one rule for "this claim is the guest being placed", which must never count against
// itself: the same uuid (compared without case or dashes, as libvirt accepts them) or the same
// name; an empty name or uuid matches nothing.
bool is_same_guest(std::string_view name, std::string_view uuid, std::string_view other_name,
                   std::string_view other_uuid);

// The index in `counted` of a claim of the same guest as `claim` (is_same_guest), or nullopt.
// Counting a guest twice would hold its pCPUs, memory and pages twice: every reader of claims
// refuses a guest it has counted already.
std::optional<std::size_t> counted_already(const GuestClaim& claim, std::span<const GuestClaim> counted);
// "guest 'NAME'" for `claim`, and when `counted` (the same guest) goes by another name, which:
// "guest 'b' (the uuid of guest 'a')", so that a refusal names the guest to release.
std::string same_guest_text(const GuestClaim& claim, const GuestClaim& counted);

// pCPUs of `candidate` already held by one of `others`, each with the holder's name.
std::vector<std::pair<std::uint32_t, std::string>> pinning_collisions(const GuestClaim& candidate,
                                                                       const std::vector<GuestClaim>& others);

}  // namespace numaplace

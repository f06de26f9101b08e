// What guests already hold on a host, per host cell, and how that folds into
// HostCell::usage. A claim pins pCPUs (dedicated vCPUs), carries shared vCPU load
// (floating vCPUs, possibly a fraction per cell when a vCPU may run on several
// cells), binds memory and huge pages to a cell. Memory a guest did not bind to
// any cell is kept aside as unbound. apply_claims is additive and pure.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "placement/cpu_set.h"
#include "placement/host_topology.h"

namespace numaplace {

struct CellClaim {
  std::uint32_t host_cell = 0;
  CpuSet pinned_cpus;          // pCPUs this guest holds for itself
  double shared_vcpus = 0;     // floating vCPU load on the cell's shared CPUs
  std::uint64_t memory_kib = 0;  // small-page memory bound here
  std::map<std::uint64_t, std::uint64_t> pages;  // huge page size KiB -> pages bound here
};

struct GuestClaim {
  std::string name;
  std::string uuid;
  bool running = false;
  bool placed_by_numaplace = false;  // read from our own record rather than inferred
  std::vector<CellClaim> cells;
  std::uint64_t unbound_memory_kib = 0;
  double unbound_vcpus = 0;
};

// Adds every claim to the usage of the cells it names. Cells the host does not have are ignored
// (a guest defined for another host); returns the names of guests with such cells.
std::vector<std::string> apply_claims(HostTopology& host, const std::vector<GuestClaim>& claims);

// pCPUs of `candidate` already pinned by one of `others`, each with the holder's name.
std::vector<std::pair<std::uint32_t, std::string>> pinning_collisions(const GuestClaim& candidate,
                                                                       const std::vector<GuestClaim>& others);

}  // namespace numaplace

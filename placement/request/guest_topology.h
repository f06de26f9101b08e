/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The guest's NUMA topology, derived from a GuestRequest with OpenStack Nova's
// rules (flavor keys win, the image may only fill what the flavor left unset,
// every inconsistency is a named error using Nova's exception class as its name),
// in Nova's order: image properties, CPU policy and its companions
// (cpu_policy_constraints.h), node count, page size (page_size.h), locked memory,
// the cell maps, then the PCI NUMA affinity policy.
// derive_guest_topology returns std::nullopt when the request asks for no NUMA
// topology at all (Nova's "no_topology": no node count, no page size, no
// dedicated or mixed CPU policy, no vPMEM label in hw:pmem (vpmem.h); the guest may float).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "placement/model/cpu_set.h"
#include "placement/model/error.h"
#include "placement/model/guest_request.h"

namespace numaplace {

enum class CpuPolicy { Unset, Shared, Dedicated, Mixed };
enum class ThreadPolicy { Unset, Prefer, Isolate, Require };
enum class EmulatorThreadsPolicy { Unset, Share, Isolate };
enum class PciNumaPolicy { Unset, Required, Preferred, Legacy, Socket };

// Page size request: a size in KiB (> 0) or one of these symbolic values.
inline constexpr std::int64_t kPageSizeNone = 0;
inline constexpr std::int64_t kPageSizeSmall = -1;
inline constexpr std::int64_t kPageSizeLarge = -2;
inline constexpr std::int64_t kPageSizeAny = -3;

struct GuestCell {
  std::uint32_t id = 0;
  CpuSet cpus;            // guest vCPU ids in this cell
  CpuSet dedicated_cpus;  // the subset that needs its own pCPU (all for dedicated, the mask for mixed)
  std::uint64_t memory_kib = 0;
  std::int64_t pagesize = kPageSizeNone;
  // vCPU -> the pCPUs the operator lets it run on (its <vcpupin>, else <vcpu cpuset>), only where
  // narrower than the host the fit sees; empty: no such bound. Nova's flavors never set it.
  std::map<std::uint32_t, CpuSet> vcpu_bounds;

  CpuSet shared_cpus() const { return cpus.minus(dedicated_cpus); }
};

struct GuestTopology {
  std::vector<GuestCell> cells;
  CpuPolicy cpu_policy = CpuPolicy::Unset;
  ThreadPolicy thread_policy = ThreadPolicy::Unset;
  EmulatorThreadsPolicy emulator_threads_policy = EmulatorThreadsPolicy::Unset;
  // The pCPUs the operator lets the emulator threads run on (<emulatorpin>, else <vcpu cpuset>),
  // where narrower than the host the fit sees: the isolated emulator pCPU is reserved within it.
  std::optional<CpuSet> emulator_bound;
  PciNumaPolicy pci_numa_policy = PciNumaPolicy::Unset;
  CpuSet realtime_cpus;                 // hw:cpu_realtime: vCPUs with a realtime scheduler
  bool locked_memory = false;           // hw:locked_memory
  std::vector<PciRequest> pci_requests;  // devices the guest asks for, placed with pci_numa_policy
  // The networks the guest's ports use; the chosen host cells must be close to them where the
  // host says which cells are (network_demands.h). Empty: no network affinity asked.
  NetworkAffinity networks;
};

Result<std::optional<GuestTopology>> derive_guest_topology(const GuestRequest& request);

// The cell-map keys of `request` (hw:numa_cpus.N and hw:numa_mem.N of the flavor, hw_numa_cpus.N and
// hw_numa_mem.N of the image) that a topology of `cells` guest cells derived from it did not read
// (`cells` 0: the request has no NUMA topology), each as a sentence saying why: N at or past
// `cells`, or a map without its N = 0, which Nova reads as no map; and the other values Nova reads
// as nothing: a page size of 0 (hw:mem_page_size, hw_mem_page_size) and a realtime mask without
// hw:cpu_realtime on the flavor; and a known key in the other map's form (hw_... among the flavor's
// extra specs, hw:... among the image's properties). Nova ignores them without a word; numaplace warns.
std::vector<std::string> unread_numa_keys(const GuestRequest& request, std::size_t cells);

std::string to_string(CpuPolicy policy);
std::string to_string(ThreadPolicy policy);
std::string to_string(EmulatorThreadsPolicy policy);
std::string to_string(PciNumaPolicy policy);

}  // namespace numaplace
